# An exception raised by a module's code while it is imported: the traceback
# goes through the import statement into the module's file.
print("before")
import broken
# expect: before
# expect-error-at: broken.py:3: ValueError: configuration is invalid
# expect-stderr: File "main.py", line 4, in <module>
# expect-stderr: File "broken.py", line 3, in <module>
