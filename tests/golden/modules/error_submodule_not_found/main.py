# A submodule missing from a package: the package's directory is where it looked.
import pkg.present
print(pkg.present.OK)
from pkg import absent  # expect-error: ImportError: cannot import name 'absent' from 'pkg' (pkg/__init__.py)
# expect: True
