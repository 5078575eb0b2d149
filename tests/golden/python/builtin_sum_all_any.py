# sum, all and any over lists, tuples, ranges and other iterables: numbers added
# quickly and everything else by its operators, with Python's errors.
print(sum([1, 2, 3]), sum((1.5, 2)), sum(range(10)), sum([True, True, False]), sum([], 7))
print(sum([[1], [2]], []), sum([2**62, 2**62 - 1]))
class Money:
    def __init__(self, v): self.v = v
    def __radd__(self, other): return Money(other + self.v)
    def __add__(self, other): return Money(self.v + (other.v if isinstance(other, Money) else other))
print(sum([Money(1), Money(2)]).v)
items = [1, 2, 3]
def grow():
    for x in items:
        yield x
print(sum(grow()), all([1, 1]), any([0, 0]), all(range(0)), any(iter([0, 3])))
try:
    sum(["a", "b"], "")
except TypeError as e:
    print(e)
try:
    sum([1, "a"])
except TypeError as e:
    print(e)
print(sum(start=5, iterable=[1]) if False else sum([1], start=5))
