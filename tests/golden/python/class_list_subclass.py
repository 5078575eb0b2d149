# Subclassing list: instances are real lists (indexing, slicing, len,
# iteration, list's methods, +, ==, sorted, json), with their own methods,
# attributes and overridden dunders, and super() reaching list's.
import json


class Stack(list):
    def push(self, item):
        self.append(item)
        return self

    def peek(self):
        return self[-1]

    @property
    def top(self):
        return self[-1] if self else None


s = Stack([1, 2])
s.push(3).push(4)
print(s, s.peek(), s.top, len(s), s[1:3], type(s[1:3]).__name__, s + [5], type(s + [5]).__name__)
print(isinstance(s, list), type(s).__name__, s == [1, 2, 3, 4], [1, 2, 3, 4] == s, sorted(s, reverse=True), sum(s))
print(s.pop(), s, s.index(2), s.count(1), list(reversed(s)), json.dumps(s), 2 in s, Stack().top, bool(Stack()))
s += [9, 8]
s.sort()
print(s, type(s).__name__, s * 2, [x * 10 for x in s], list(map(str, s)), max(s), s.copy(), type(s.copy()).__name__)


class Clamped(list):
    def __init__(self, limit, items=()):
        super().__init__(min(x, limit) for x in items)
        self.limit = limit

    def __setitem__(self, index, value):
        super().__setitem__(index, min(value, self.limit))

    def append(self, value):
        super().append(min(value, self.limit))

    def __getitem__(self, index):
        if isinstance(index, str):
            return getattr(self, index)
        return super().__getitem__(index)

    def __repr__(self):
        return f"Clamped({self.limit}, {list(self)})"


c = Clamped(10, [3, 30, 7])
c[0] = 99
c.append(50)
print(c, c[0], c["limit"], c[-1], len(c), str(c), c.limit, vars(c), [x for x in c])


class Tracked(list):
    def __len__(self):
        return super().__len__() * 100

    def __iter__(self):
        yield from reversed(list(super().__iter__()))

    def __eq__(self, other):
        return "eq!"

    def __bool__(self):
        return False


t = Tracked([1, 2, 3])
print(len(t), list(t), t == [1, 2, 3], bool(t), t[0], t.__class__.__name__, 2 in t)
print(list.__len__(t), list.__getitem__(t, 1), list.__repr__(t), list.__contains__(t, 3))
