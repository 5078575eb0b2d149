# Inside a def, list and tuple displays, len(x) and xs.append(x) are compiled
# nodes with fast paths for exact lists, tuples and dicts; everything else
# (subclasses, user classes, a shadowed len, starred elements) goes the
# general way, with Python's results and errors.
import collections


def displays(a, b):
    empty_list, empty_tuple = [], ()
    pair = (a, b)
    nested = [a, [b, (a, b)], ()]
    starred = [*pair, *nested[1]]
    single = (a,)
    return empty_list, empty_tuple, pair, nested, starred, single, [a] * 2 + [b]


print(displays(1, "x"))
print(type(displays(1, 2)[1]).__name__)


def first_error(values):
    return [values[0], values[5]]


try:
    first_error([1, 2])
except IndexError as error:
    print("IndexError:", error)


class Sized:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


class Broken:
    def __len__(self):
        raise ValueError("no length")


class MyList(list):
    def __len__(self):
        return 100

    def append(self, item):
        super().append(item * 10)


def lengths():
    d = {"a": 1, "b": 2}
    out = [len([1, 2, 3]), len((1,)), len(d), len("héllo"), len({1, 2}), len(range(7)), len(Sized(4))]
    out.append(len(MyList([1])))
    out.append(len(collections.OrderedDict(a=1)))
    out.append(len(collections.defaultdict(int, {1: 2, 3: 4})))
    size = len
    out.append(size("abc"))
    return out


print(lengths())


def len_errors():
    for bad in (5, None, Sized(-1), Broken()):
        try:
            len(bad)
        except (TypeError, ValueError) as error:
            print(type(error).__name__ + ":", error)


len_errors()


def shadowed(xs):
    len = lambda v: "shadowed"
    return len(xs)


print(shadowed([1, 2]))


def appends():
    xs = []
    for i in range(5):
        xs.append(i)
        xs.append((i, [i]))
    mine = MyList()
    mine.append(3)
    d = collections.deque([1])
    d.append(2)

    class Log:
        def __init__(self):
            self.items = []

        def append(self, item):
            self.items.append(("logged", item))

    log = Log()
    log.append(7)
    return xs, mine, list(d), log.items


print(appends())


class Holder:
    def __init__(self):
        self.items = [0]

    def swap(self):
        # The list is taken before the argument runs, which rebinds it: the
        # item goes to the old one.
        old = self.items
        self.items.append(self.replace())
        return old, self.items

    def replace(self):
        self.items = ["new"]
        return 1


print(Holder().swap())


def append_errors():
    for owner in ((1, 2), None, "text"):
        try:
            owner.append(3)
        except AttributeError as error:
            print("AttributeError:", error)


append_errors()


def self_append():
    xs = [1]
    xs.append(xs)
    return xs


print(self_append())
