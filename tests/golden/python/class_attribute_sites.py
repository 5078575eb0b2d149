# Attribute reads, stores and method calls at one site each (the functions
# below), run again and again while the classes and instances under them
# change: every use sees the change at once.
class A:
    def __init__(self, x):
        self.x = x

    def m(self):
        return "A.m"


class B:
    def __init__(self, x):
        self.y = 0
        self.x = x  # at another position in the instance's __dict__

    def m(self):
        return "B.m"


def read(o):
    return o.x


def call(o):
    return o.m()


def write(o, value):
    o.x = value


def bump(o):
    o.x += 1


a, b = A(1), B(2)
for o in [a, a, b, a, b]:
    print(read(o), call(o))

# An instance attribute that shadows the method, then goes.
a.m = lambda: "own m"
print(call(a), call(A(0)))
del a.m
print(call(a))

# The method rebound on the class after the site has called it.
for i in range(2):
    print(call(a))
A.m = lambda self: "new A.m"
print(call(a))


# A subclass's instance at the same sites, then the base's method goes and comes back.
class C(A):
    pass


c = C(5)
print(read(c), call(c))
del A.m
try:
    call(c)
except AttributeError as error:
    print("AttributeError:", error)
A.m = lambda self: "A.m again"
print(call(c))

# A property added after reads and writes were seen, then removed.
for i in range(2):
    write(a, i)
    print(read(a))
A.x = property(lambda self: 100, lambda self, value: print("setter", value))
print(read(a))
write(a, 9)
bump(a)
print(read(a))
del A.x
print(read(a))

# __setattr__ added later, then removed.
A.__setattr__ = lambda self, name, value: print("__setattr__", name, value)
write(a, 3)
bump(a)
print(read(a))
del A.__setattr__
write(a, 4)
bump(a)
print(read(a))

# The instance's attribute deleted: the class attribute, then __getattr__, then nothing.
A.x = "class x"
del a.x
print(read(a))
del A.x
A.__getattr__ = lambda self, name: "getattr " + name
print(read(a))
del A.__getattr__
try:
    read(a)
except AttributeError as error:
    print("AttributeError:", error)


# A class made anew at each call: no site takes one for another.
def make(n):
    class K:
        def __init__(self):
            self.x = n

        def m(self):
            return "K" + str(n)

    return K()


for n in range(4):
    k = make(n)
    print(read(k), call(k))
    del k


# Instances whose attributes were written in different orders.
class D:
    def __init__(self, first):
        if first:
            self.x = 1
            self.z = 2
        else:
            self.z = 3
            self.x = 4


for first in [True, False, True]:
    d = D(first)
    print(read(d))
    bump(d)
    write(d, d.x * 10)
    print(d.x, d.z)


# A class attribute rebound while the instance has none, then shadowed by one.
class E:
    x = 1


e = E()
print(read(e))
E.x = 2
print(read(e))
e.x = 3
print(read(e))


# Static and class methods at a method call's site.
class F:
    @staticmethod
    def m():
        return "static"


f = F()
print(call(f))
F.m = classmethod(lambda cls: "classmethod " + cls.__name__)
print(call(f))
F.m = 42
try:
    call(f)
except TypeError as error:
    print("TypeError:", error)
