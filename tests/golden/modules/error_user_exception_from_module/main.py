# An uncaught exception of a class defined in a module is named with its module.
from errors import check
check(1)
check(-1)
# expect-error-at: errors.py:7: errors.NegativeError: -1 is negative
