# An exception inside a function of an imported module: each frame in its own file.
import mathlib
print(mathlib.safe_ratio(6, 3))
print(mathlib.ratio(1, 0))
# expect: 2.0
# expect-error-at: mathlib.py:2: ZeroDivisionError: division by zero
# expect-stderr: File "main.py", line 4, in <module>
# expect-stderr: File "mathlib.py", line 6, in ratio
# expect-stderr: File "mathlib.py", line 2, in divide
