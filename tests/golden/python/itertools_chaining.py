# itertools.chain, islice, accumulate, zip_longest, starmap, pairwise, compress.
import itertools
import operator

print(list(itertools.chain([1, 2], (3,), "ab")))
print(list(itertools.chain.from_iterable([[1], [], [2, 3]])))
print(list(itertools.islice("abcdefg", 2)), list(itertools.islice("abcdefg", 2, 5)), list(itertools.islice("abcdefg", 0, None, 3)))
print(list(itertools.accumulate([1, 2, 3, 4])), list(itertools.accumulate([3, 1, 4, 1, 5], max)))
print(list(itertools.accumulate([1, 2, 3], operator.mul, initial=10)))
print(list(itertools.zip_longest("abc", [1], fillvalue="-")), list(itertools.zip_longest()))
print(list(itertools.starmap(lambda a, b: a * b, [(1, 2), (3, 4)])))
print(list(itertools.pairwise([1, 2, 3, 4])), list(itertools.pairwise([1])))
print(list(itertools.compress("abcdef", [1, 0, 1, 0, 1, 1])))
