# A name the module does not define: ImportError naming the module and its file.
from helpers import present
print(present)
from helpers import absent  # expect-error: ImportError: cannot import name 'absent' from 'helpers' (helpers.py)
# expect: here
