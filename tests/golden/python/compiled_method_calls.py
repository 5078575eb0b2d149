# Method calls, attribute and item stores, and class instantiation inside
# function bodies (the compiled bodies' fast paths), in the cases where the
# fast path must step aside: shadowing, reassignment, descriptors, __getattr__,
# __new__, __setattr__, wrong argument counts.


def trace(label, value):
    print("eval", label)
    return value


class Counter:
    def __init__(self, start=0):
        self.count = start

    def bump(self, by):
        self.count += by
        return self.count

    def twice(self, by):
        return self.bump(by) + self.bump(by)


def shadowing():
    c = Counter()
    print(c.bump(1))
    c.bump = lambda by: "own " + str(by)  # an instance attribute wins over the class's def
    print(c.bump(2))
    del c.bump
    print(c.bump(3))


def reassigned():
    c = Counter(10)
    original = Counter.bump
    results = []
    for i in range(3):
        results.append(c.bump(1))
        if i == 0:
            Counter.bump = lambda self, by: "patched " + str(by)
    print(results)
    Counter.bump = original
    print(c.bump(1), c.twice(1))


class Dynamic:
    def __getattr__(self, name):
        return lambda *args: (name, args)


class Described:
    def __init__(self):
        self.calls = 0

    @property
    def action(self):
        self.calls += 1
        return lambda x: x * 2

    @staticmethod
    def static(x):
        return x + 1

    @classmethod
    def make(cls, x):
        return cls.__name__, x


def descriptors():
    d = Dynamic()
    print(d.anything(1, 2))
    print(d.other())
    e = Described()
    print(e.action(21), e.calls)
    print(e.static(1), e.make(2))
    bound = e.static
    method = Counter(5).bump
    print(bound(10), method(1), method(1))


class MyList(list):
    def append(self, item):
        super().append(item * 10)


def containers():
    items = []
    mine = MyList()
    table = {}
    for i in range(4):
        items.append(i)
        mine.append(i)
        table[i % 2] = table.get(i % 2, 0) + i
        table[i % 2] += 100
    print(items, mine, table)
    words = "a b c".split()
    print(words, " ".join(words).upper())
    nested = [[0, 0], [0, 0]]
    nested[1][0] = 5
    nested[0][1] += 3
    print(nested)
    grid = {}
    grid[1, 2] = "x"
    print(grid[1, 2], grid)
    try:
        print(len(items, items))
    except TypeError as error:
        print("TypeError:", error)
    try:
        items[10] = 1
    except IndexError as error:
        print("IndexError:", error)


def store_order():
    box = Counter()
    table = {}
    trace("target", box).count = trace("value", 1)
    trace("table", table)[trace("key", "k")] = trace("value", 2)
    trace("target", box).count += trace("operand", 5)
    trace("table", table)[trace("key", "k")] += trace("operand", 3)
    print(box.count, table)


class Guarded:
    def __setattr__(self, name, value):
        print("setattr", name, value)
        object.__setattr__(self, name, value * 2)


class Celsius:
    def __init__(self):
        self._c = 0

    @property
    def degrees(self):
        return self._c

    @degrees.setter
    def degrees(self, value):
        print("setter", value)
        self._c = value


def stores():
    g = Guarded()
    g.x = 1
    g.x += 1
    print(g.x)
    c = Celsius()
    c.degrees = 5
    c.degrees += 1
    print(c.degrees)
    try:
        n = 1
        n.imaginary = 2
    except AttributeError as error:
        print("AttributeError:", error)
    acc = Counter()
    acc.items = [1]
    alias = acc.items
    acc.items += [2]  # in place: the alias sees it
    print(alias, acc.items is alias)


class Made:
    def __new__(cls, value):
        print("new", value)
        return super().__new__(cls)

    def __init__(self, value):
        self.value = value


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


class Bad:
    def __init__(self):
        return 1


class NoInit:
    pass


def construction():
    print(Made(3).value)
    p = Point(1, 2)
    print(p.x, p.y)
    print(Counter().count, Counter(4).count)
    try:
        Point(1)
    except TypeError as error:
        print("TypeError:", error)
    try:
        Bad()
    except TypeError as error:
        print("TypeError:", error)
    try:
        NoInit(1)
    except TypeError as error:
        print("TypeError:", error)
    print(type(NoInit()).__name__)


def missing_method():
    c = Counter()
    try:
        c.nothing(1)
    except AttributeError as error:
        print("AttributeError:", error)
    try:
        c.bump()
    except TypeError as error:
        print("TypeError:", error)


class Text(str):
    def __add__(self, other):
        return "Text+" + other

    def __radd__(self, other):
        return "+Text"

    def __str__(self):
        return "as str"


class Shown:
    def __str__(self):
        return "shown"


def builtins_and_items():
    words = ["a", "b", "c"]
    counts = {"a": 1}
    print(len(words), len(counts), len("héllo"), len(range(5)))
    print(str(12), str(1.5), str(None), str(Shown()), str(Text("t")), type(str(Text("t"))).__name__, str())
    print("x" + "y", "é" + "a", Text("t") + "u", "u" + Text("t"))
    print(counts.get("a"), counts.get("b"), counts.get("b", 0), counts.get(*["a"]))
    print(words[0], words[-1], words[True], (1, 2, 3)[-2], words[0:2])
    try:
        len(5)
    except TypeError as error:
        print("TypeError:", error)
    try:
        words[3]
    except IndexError as error:
        print("IndexError:", error)
    length = len
    len_calls = [length(w * 2) for w in words]
    print(len_calls)


builtins_and_items()
shadowing()
reassigned()
descriptors()
containers()
store_order()
stores()
construction()
missing_method()


def fails():
    p = Point(1, 2)
    return p.z.w(1)


fails()
