# collections.Counter: counting, most_common, arithmetic, update/subtract.
from collections import Counter

c = Counter("abracadabra")
print(c)
print(c["a"], c["z"], c.most_common(2), c.most_common()[-1])
print(sorted(c.elements()))
c.update("aaz")
c.subtract({"b": 2})
print(c, c.total())
a, b = Counter(a=3, b=1), Counter(a=1, b=2)
print(a + b, a - b, a | b, a & b)
print(Counter({"x": 2}), Counter(), Counter([1, 1, 2]) == {1: 2, 2: 1})
words = "the cat and the hat and the bat".split()
print(Counter(words).most_common(1))
