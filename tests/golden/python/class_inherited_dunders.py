# Dunder methods are inherited and may be overridden part way down.
class Base:
    def __init__(self, items):
        self.items = list(items)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]

    def __repr__(self):
        return f"{type(self).__name__}({self.items})"

    def __eq__(self, other):
        return type(self) is type(other) and self.items == other.items

    __hash__ = None


class Reversed(Base):
    def __getitem__(self, i):
        return self.items[::-1][i]


r = Reversed([1, 2, 3])
print(r, len(r), r[0], list(r), r[0:2])
print(Base([1]) == Base([1]), Base([1]) == Reversed([1]), r != Reversed([1, 2, 3]))
try:
    hash(r)
except TypeError as e:
    print(e)
