# A name imported from a module is a binding of its own: rebinding it does not change the module.
from settings import level
import settings
level = 5
print(level, settings.level)
settings.level = 7
from settings import level
print(level)
# expect: 5 1
# expect: 7
