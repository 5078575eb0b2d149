# An error two imports deep: the traceback shows the whole import chain.
import outer
# expect-error-at: pkg/inner.py:2: KeyError: 'missing'
# expect-stderr: File "main.py", line 2, in <module>
# expect-stderr: File "outer.py", line 1, in <module>
# expect-stderr: File "pkg/__init__.py", line 1, in <module>
# expect-stderr: File "pkg/inner.py", line 2, in <module>
