# itertools.count, repeat and cycle, cut short with islice and zip.
import itertools

print(list(itertools.islice(itertools.count(), 5)))
print(list(itertools.islice(itertools.count(10, -3), 4)))
print(list(itertools.islice(itertools.count(0.5, 0.25), 3)))
print(list(itertools.repeat("x", 3)), list(itertools.repeat(1, 0)))
print(list(zip(itertools.repeat(7), "abc")))
print(list(itertools.islice(itertools.cycle("ab"), 5)))
print(list(map(pow, range(4), itertools.repeat(2))))
