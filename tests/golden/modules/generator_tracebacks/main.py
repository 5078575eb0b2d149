# The traceback of an error raised in a generator's body (one that yields in
# statements of its own, run on its resumer's stack) names the body's frames
# between its resumers', as for any generator: here from a loop two
# generators deep, resumed by a for loop in a function.
from stages import scaled


def consume(values):
    total = 0
    for value in scaled(values, 3):
        total += value
    return total


print(consume([1, 2, 3]))
print(consume([4, "x", 5]))

# expect: 27
# expect-error-at: stages.py:5: TypeError: can only concatenate str (not "int") to str
# expect-stderr: File "main.py", line 16, in <module>
# expect-stderr: File "main.py", line 10, in consume
# expect-stderr: File "stages.py", line 9, in scaled
# expect-stderr: File "stages.py", line 5, in numbers
