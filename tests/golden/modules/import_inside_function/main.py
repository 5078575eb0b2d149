# An import inside a function binds a local name; the module is still cached.
import sys


def use():
    import lazy
    from lazy import VALUE as value
    return lazy.VALUE + value


print("lazy" in sys.modules)
print(use(), use())
print("lazy" in sys.modules)
try:
    lazy
except NameError as e:
    print(e)
# expect: False
# expect: loading lazy
# expect: 4 4
# expect: True
# expect: name 'lazy' is not defined
