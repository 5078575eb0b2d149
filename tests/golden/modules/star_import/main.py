# `from m import *`: the names in __all__, else the public ones.
from public import *
from limited import *
print(alpha, beta)
print(exported())
try:
    _private
except NameError as e:
    print(e)
try:
    hidden
except NameError as e:
    print(e)
# expect: 1 2
# expect: exported
# expect: name '_private' is not defined
# expect: name 'hidden' is not defined
