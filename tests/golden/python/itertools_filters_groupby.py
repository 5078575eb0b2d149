# itertools.takewhile, dropwhile, filterfalse and groupby.
import itertools

data = [1, 4, 6, 4, 1]
print(list(itertools.takewhile(lambda x: x < 5, data)))
print(list(itertools.dropwhile(lambda x: x < 5, data)))
print(list(itertools.filterfalse(lambda x: x % 2, range(10))))
print([(k, list(g)) for k, g in itertools.groupby("aaabccdd")])
words = ["apple", "avocado", "banana", "blueberry", "cherry"]
for letter, group in itertools.groupby(words, key=lambda w: w[0]):
    print(letter, list(group))
it = itertools.takewhile(lambda x: x < 3, itertools.count())
print(next(it), next(it), next(it), next(it, "done"))
