# Changing classes after their instances exist: each change is seen at once
# by the instances, the subclasses and the next construction.
class Base:
    def __init__(self, x):
        self.x = x


class Point(Base):
    def norm(self):
        return abs(self.x)


p = Point(-3)
print(p.x, p.norm())

# A property added to the base overrides the instance's own attribute.
Base.x = property(lambda self: "from property")
print(p.x)
try:
    p.x = 5
except AttributeError:
    print("AttributeError")
del Base.x
print(p.x)

# A method replaced on the class, then shadowed by an instance attribute.
Point.norm = lambda self: "patched"
print(p.norm())
p.norm = lambda: "own"
print(p.norm())
del p.norm
print(p.norm())


# __setattr__ added later, then removed.
def logging_setattr(self, name, value):
    print("set", name, value)
    object.__setattr__(self, name, value)


Base.__setattr__ = logging_setattr
p.y = 1
q = Point(7)
del Base.__setattr__
p.y = 2
print(p.y, q.x)

# __getattr__ added later.
try:
    p.missing
except AttributeError as error:
    print("AttributeError:", error)
Point.__getattr__ = lambda self, name: "default " + name
print(p.missing)
del Point.__getattr__

# __init__ and __new__ replaced after instances were made.
def new_init(self, x, y=0):
    self.x = x * 10
    self.y = y


Point.__init__ = new_init
r = Point(2, 3)
print(r.x, r.y)


def new_new(cls, *args):
    print("new", cls.__name__, args)
    return object.__new__(cls)


Base.__new__ = staticmethod(new_new)
s = Point(4)
print(s.x)


# A property's setter on a class whose instances are written in __init__.
class Celsius:
    def __init__(self, degrees):
        self.degrees = degrees


c = Celsius(10)
c._degrees = 10


def set_degrees(self, value):
    print("setter", value)
    self._degrees = value


Celsius.degrees = property(lambda self: self._degrees * 2, set_degrees)
d = Celsius(20)
print(c.degrees, d.degrees)
c.degrees = 1
print(c.degrees)

# setattr() on a class, and a class attribute rebound to a function.
setattr(Point, "extra", lambda self: "extra " + str(self.x))
print(s.extra())
Point.extra = 42
print(s.extra)
