# Classes and functions know the module that defined them.
from geometry import Circle, make, Error
c = make(2)
print(type(c).__module__, Circle.__module__, make.__module__)
print(Circle, type(c).__qualname__)
print(isinstance(c, Circle))
class Local:
    pass
print(Local.__module__, Local)
try:
    raise Error("bad radius")
except Error as e:
    print(type(e).__module__, type(e).__name__, e)
# expect: geometry geometry geometry
# expect: <class 'geometry.Circle'> Circle
# expect: True
# expect: __main__ <class '__main__.Local'>
# expect: geometry Error bad radius
