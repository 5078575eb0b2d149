# sorted with key and reverse, min/max with key, zip, enumerate, map, filter.
words = ["banana", "Apple", "cherry", "date"]
print(sorted(words), sorted(words, key=str.lower), sorted(words, key=len, reverse=True))
print(min(words, key=len), max(words), list(zip(words, range(3))), list(enumerate("ab", 1)))
print(list(map(len, words)), list(filter(lambda w: "a" in w, words)), any([]), all([]))
print(sum([0.1] * 10), sum(range(10), 100), list(range(10, 0, -3)), len(range(0, 100, 7)))
