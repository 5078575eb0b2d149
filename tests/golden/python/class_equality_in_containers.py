# list.index, list.count, `in` and dict lookups go through __eq__ and __hash__.
class P:
    def __init__(self, x):
        self.x = x

    def __eq__(self, other):
        return isinstance(other, P) and self.x == other.x

    def __hash__(self):
        return hash(("P", self.x))

    def __repr__(self):
        return f"P({self.x})"


items = [P(1), P(2), P(1)]
print(items.index(P(2)), items.count(P(1)), P(3) in items, P(2) in items)
print(sorted({P(1), P(1), P(2)}, key=lambda p: p.x), {P(1): "one"}[P(1)])
items.remove(P(1))
print(items)
