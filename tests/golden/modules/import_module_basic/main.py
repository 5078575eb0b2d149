# A module beside the script: its functions, constants and classes.
import helper
print(helper.greet("world"))
print(helper.ANSWER * 2)
print(helper.Point(1, 2).norm2())
# expect: hello, world
# expect: 84
# expect: 5
