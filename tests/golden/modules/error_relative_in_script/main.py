# The script is no package: a relative import in it has no parent.
from . import sibling  # expect-error: ImportError: attempted relative import with no known parent package
