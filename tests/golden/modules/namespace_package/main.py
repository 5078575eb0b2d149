# A directory without __init__.py is a namespace package.
import plugins.alpha
from plugins import beta
print(plugins.alpha.NAME, beta.NAME)
print(hasattr(plugins, "__file__") and plugins.__file__ is not None)
print(len(list(plugins.__path__)))
# expect: alpha beta
# expect: False
# expect: 1
