# A class's own __new__: it makes the instance (super().__new__(cls) or
# object.__new__(cls)), __init__ then runs with the call's arguments only
# when __new__ returned an instance of the class; int.__new__, str.__new__,
# tuple.__new__ and float.__new__ make a subclass's instance from a value.
class Singleton:
    _instance = None

    def __new__(cls, *args, **kwargs):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __init__(self, value):
        self.value = value


a = Singleton(1)
b = Singleton(2)
print(a is b, a.value, type(a).__name__)


class Doubler:
    def __new__(cls, x):
        return x * 2

    def __init__(self, x):
        print("never runs")


print(Doubler(21), type(Doubler("ab")).__name__)


class Port(int):
    def __new__(cls, value, name="?"):
        self = int.__new__(cls, value)
        self.name = name
        return self


p = Port(80, "http")
print(p, p.name, p + 1, type(p).__name__, Port("443").name)


class Upper(str):
    def __new__(cls, text):
        return super().__new__(cls, text.upper())


print(Upper("abc"), type(Upper("x")).__name__, len(Upper("ab")), Upper("q") == "Q")


class Vec(tuple):
    def __new__(cls, x, y):
        return super().__new__(cls, (x, y))

    @property
    def x(self):
        return self[0]


print(Vec(1, 2), Vec(1, 2).x, Vec(3, 4) + (5,), isinstance(Vec(0, 0), tuple))


class Recorder:
    def __new__(cls, *args):
        obj = object.__new__(cls)
        obj.args = args
        return obj


print(Recorder(1, 2).args, Recorder().args)


class Base:
    def __new__(cls, *a):
        print("Base.__new__", cls.__name__, a)
        return super().__new__(cls)


class Child(Base):
    def __init__(self, v):
        self.v = v


print(Child(5).v, isinstance(Child(6), Base))


class Scaled(float):
    def __new__(cls, v):
        return super().__new__(cls, v * 2)

    def __init__(self, v):
        self.original = v


f = Scaled(1.5)
print(f, f.original, f + 1, int.__new__(int, "12"), float.__new__(float), str.__new__(str, 5), tuple.__new__(tuple, "ab"))


class Cached:
    _cache = {}

    def __new__(cls, key):
        if key not in cls._cache:
            instance = super().__new__(cls)
            instance.key = key
            cls._cache[key] = instance
        return cls._cache[key]


print(Cached("a") is Cached("a"), Cached("a") is Cached("b"), sorted(Cached._cache), Cached.__new__(Cached, "c").key)

for make in (lambda: object.__new__(Port), lambda: int.__new__(Upper, 3), lambda: object.__new__(3)):
    try:
        make()
    except TypeError as error:
        print("TypeError:", error)
