# dir() without an argument names the running function's locals or the module's
# globals; a named tuple class made by a call belongs to the calling module
# (or to module=), functools' CacheInfo to functools.
from pkg import shapes
print(shapes.Point.__module__, shapes.Other.__module__, shapes.Point(1, 2))
print(shapes.names())
shapes.sq(3)
print(type(shapes.sq.cache_info()).__module__)
top = 1
print([n for n in dir() if not n.startswith('__')])
print('__name__' in dir())
# expect: pkg.shapes elsewhere Point(x=1, y=2)
# expect: ['local_value']
# expect: functools
# expect: ['shapes', 'top']
# expect: True
