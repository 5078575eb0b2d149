# `import pkg.sub` binds `pkg`; a submodule becomes an attribute of its
# package when it is imported, not before.
import pkg.sub
print(pkg.sub.value())
print(hasattr(pkg, "other"))
from pkg import other
print(hasattr(pkg, "other"), other.value())
# expect: sub
# expect: False
# expect: True other
