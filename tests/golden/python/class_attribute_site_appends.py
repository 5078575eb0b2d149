# Stores that add an attribute to an instance (an __init__'s), at sites that
# have seen other instances: each name is in the __dict__ once, in the order
# Python gives, whatever order earlier instances took at the same sites.
class P:
    def __init__(self, order):
        for name in order:
            store(self, name)


def store(o, name):
    if name == "a":
        o.a = "a"
    elif name == "b":
        o.b = "b"
    else:
        o.c = "c"


for order in ["abc", "abc", "cab", "ba", "a", "cba", "bca", "abc"]:
    p = P(order)
    print(order, vars(p))


# A store at the position an attribute went before, where the instance
# already has that name elsewhere (stored at another site).
class Q:
    pass


def set_x(o, value):
    o.x = value


def set_y(o, value):
    o.y = value


first = Q()
set_y(first, 1)
set_x(first, 2)  # x second
second = Q()
second.x = 0  # x first, one entry: a store of x is not an append
set_x(second, 3)
print(vars(first), vars(second))
third = Q()
third.z = 0
third.x = 1
set_y(third, 5)
set_x(third, 6)
print(vars(third))
del third.z, third.x, third.y
set_x(third, 7)
set_y(third, 8)
print(vars(third))


# Stores that must not go in the __dict__: __slots__, a property, __setattr__.
class S:
    __slots__ = ("x", "y")


s = S()
set_x(s, 1)
set_y(s, 2)
print(s.x, s.y)


class R:
    pass


r1, r2 = R(), R()
set_x(r1, 1)
R.x = property(lambda self: "property x", lambda self, value: print("set x", value))
set_x(r2, 2)
print(r1.x, r2.x, vars(r1), vars(r2))
del R.x
R.__setattr__ = lambda self, name, value: print("__setattr__", name, value)
r3 = R()
set_x(r3, 3)
set_y(r3, 4)
print(vars(r3))
del R.__setattr__
set_x(r3, 5)
print(vars(r3))


# Augmented stores: ints, floats, strings, a list (the same
# list, extended), an object with __iadd__, and a number subclass.
class Counter:
    def __init__(self):
        self.n = 2**40
        self.f = 0.5
        self.s = "s"
        self.items = [1]


class Acc:
    def __init__(self):
        self.total = 0

    def __iadd__(self, other):
        self.total += other
        return self


class Int(int):
    def __add__(self, other):
        return Int(int(self) + other + 100)


def grow(o):
    o.n += 2**40
    o.f += 0.25
    o.s += "t"
    o.items += [len(o.items)]


c = Counter()
items = c.items
for i in range(3):
    grow(c)
print(c.n, c.f, c.s, c.items, c.items is items)
c.acc = Acc()
acc = c.acc
for i in range(3):
    c.acc += i
print(c.acc is acc, c.acc.total)
c.k = Int(1)
for i in range(2):
    c.k += 1
print(c.k, type(c.k).__name__)


# A method call at a site whose instances shadow the method in some __dict__s.
class M:
    def m(self):
        return "M.m"


def call(o):
    return o.m()


plain, shadowed = M(), M()
shadowed.m = lambda: "own m"
for o in [plain, shadowed, plain, shadowed]:
    print(call(o))


# Construction at one call site of classes whose __init__ stores differ.
class V:
    def __init__(self, x, y):
        self.x = x
        self.y = y


class W(V):
    def __init__(self, x, y):
        self.y = y
        super().__init__(x, y)


def make(cls, i):
    return cls(i, i + 1)


for cls in [V, W, V, W]:
    print(cls.__name__, vars(make(cls, 1)))


# Operations whose operands are attribute reads, at sites that see own
# attributes, class attributes, properties, __getattr__, missing attributes
# and objects that are not instances.
class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


class Shifted(Point):
    @property
    def y(self):
        return 1000

    @y.setter
    def y(self, value):
        pass


class Lazy:
    def __getattr__(self, name):
        return len(name)


class Box:
    def __init__(self, inner):
        self.inner = inner


def combine(a, b):
    return a.x + b.y, a.x * b.x, a.y - 1, a.x < b.x, a.y == b.y


def nested(box):
    return box.inner.x + box.inner.y


p, q = Point(1, 2), Point(3.5, 4.5)
for a, b in [(p, q), (q, p), (p, Shifted(5, 6)), (Shifted(7, 8), p), (p, Lazy()), (p, q)]:
    print(combine(a, b))
Point.y = 9  # a class attribute: instances' own y still wins
print(combine(p, q), nested(Box(p)), nested(Box(Shifted(1, 2))))
print(nested(Box(Lazy())))
for bad in [Point.__new__(Point), 5, None]:
    try:
        print(combine(p, bad))
    except AttributeError as error:
        print("AttributeError:", error)
strings = Point("a", "b")
try:
    combine(strings, p)
except TypeError as error:
    print("TypeError:", error)


# Construction at one call site: the class changed by an argument's
# evaluation, __init__ of other arities, an __init__ returning a value, a
# __new__, an argument that raises, and more arguments than a few.
class T:
    def __init__(self, a, b):
        self.args = (a, b)


def patch(value):
    T.__init__ = lambda self, a, b: setattr(self, "args", ("patched", a, b))
    return value


def build(a, b):
    return T(a, b)


print(build(1, 2).args, build(patch(3), 4).args, build(5, 6).args)
T.__init__ = lambda self, a, b: 7
try:
    build(1, 2)
except TypeError as error:
    print("TypeError:", error)
T.__init__ = lambda self, *args: setattr(self, "args", args)
print(build(8, 9).args)
T.__new__ = lambda cls, a, b: "made by __new__ " + str(a + b)
print(build(10, 11))
del T.__new__
try:
    build(1, {}[0])
except KeyError as error:
    print("KeyError:", error)


class Five:
    def __init__(self, a, b, c, d, e):
        self.total = a + b + c + d + e


print(Five(1, 2, 3, 4, 5).total)
try:
    Five(1, 2)
except TypeError as error:
    print("TypeError:", error)


# Method calls on an attribute (h.inner.m()): the receiver is the object the
# attribute held when read, whatever the arguments or the lookup then do to it.
class Inner:
    def __init__(self, name):
        self.name = name

    def m(self, value):
        return self.name + " got " + str(value)


class Lookup:
    def __getattr__(self, name):
        del holder.inner  # the holder's attribute goes while the lookup runs
        return lambda: "looked up " + name


class Holder:
    def __init__(self, inner):
        self.inner = inner
        self.items = []


def replace(h):
    h.inner = Inner("second")
    h.items = ["other list"]
    return 1


def call_inner(h):
    return h.inner.m(replace(h))


def append_item(h):
    h.items.append(replace(h))
    return h.items


holder = Holder(Inner("first"))
print(call_inner(holder), call_inner(holder), append_item(holder))
def call_go(h):
    return h.inner.go()


holder = Holder(Lookup())
print(call_go(holder), vars(holder))
