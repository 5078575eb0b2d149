# A class with __init__, methods, instance and class attributes.
class Counter:
    total = 0

    def __init__(self, start=0):
        self.value = start
        Counter.total += 1

    def bump(self, by=1):
        self.value += by
        return self

    def read(self):
        return self.value


a = Counter()
b = Counter(10)
a.bump().bump(5)
print(a.read(), b.read(), Counter.total, a.total)
b.total = 99
print(b.total, Counter.total, a.total)
print(type(a).__name__, Counter.__name__, Counter.__qualname__, isinstance(a, Counter))
print(hasattr(a, "value"), hasattr(a, "missing"), getattr(a, "value"), getattr(a, "nope", "default"))
setattr(a, "extra", [1, 2])
print(a.extra, sorted(vars(a)))
