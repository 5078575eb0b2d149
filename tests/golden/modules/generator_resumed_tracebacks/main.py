# An error raised when a resumed generator's for loop takes its next item
# (its dict changed size while it was paused) is reported at that loop,
# with the frames of the generators resuming it, two deep.
from sources import chained

table = {"a": 1, "b": 2}
for key in chained(table):
    print(key)
    table[key] = 0

# expect: A
# expect-error-at: sources.py:2: RuntimeError: dictionary changed size during iteration
# expect-stderr: File "main.py", line 7, in <module>
# expect-stderr: File "sources.py", line 8, in chained
# expect-stderr: File "sources.py", line 2, in keys
