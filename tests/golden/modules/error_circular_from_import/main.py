# `from a import x` while a is still being initialised and has no x yet.
import alpha
# expect-error-at: beta.py:1: ImportError: cannot import name 'VALUE' from partially initialized module 'alpha' (most likely due to a circular import) (alpha.py)
# expect-stderr: File "main.py", line 2, in <module>
# expect-stderr: File "alpha.py", line 1, in <module>
# expect-stderr: File "beta.py", line 1, in <module>
