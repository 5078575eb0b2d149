# A NameError inside a module names the module's own global, not the script's.
x_in_main = 1
import reader
reader.read()
# expect-error-at: reader.py:2: NameError: name 'x_in_main' is not defined
