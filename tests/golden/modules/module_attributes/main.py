# A module object: __name__, __file__, __package__, its attributes and dir().
import sys
import info
import pkg.part
print(info.__name__, info.__file__.endswith("info.py"), repr(info.__package__))
print(pkg.__name__, pkg.__file__.endswith("__init__.py"), pkg.__package__)
print(pkg.part.__name__, pkg.part.__package__)
print([n for n in dir(info) if not n.startswith("_")])
print(type(info).__name__, isinstance(info, type(sys)))
info.added = "set from main"
print(info.read_added())
print(getattr(info, "missing", "default"))
# expect: info True ''
# expect: pkg True pkg
# expect: pkg.part pkg
# expect: ['CONSTANT', 'helper', 'read_added']
# expect: module True
# expect: set from main
# expect: default
