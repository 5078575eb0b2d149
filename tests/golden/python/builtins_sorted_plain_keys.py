# sorted() and list.sort() over ints, bools and strs, whose order needs no
# __lt__, beside the keys that do.
print(sorted([3, True, -7, 0, False, 2**40, -2**40]))
print(sorted(["b", "a", "é", "Z", "", "ab", "日本", "aa"]))
print(sorted(["pear", "fig", "apple", "kiwi"], key=len))
print(sorted(["pear", "fig", "apple", "kiwi"], key=len, reverse=True))
print(sorted([(1, "b"), (1, "a"), (0, "z")]))
pairs = [(2, "x"), (1, "y"), (2, "a"), (1, "b")]
print(sorted(pairs, key=lambda p: p[0]))
print(sorted(pairs, key=lambda p: p[0], reverse=True))
print(sorted([1, 2.5, -1, 0.0]))


class Backwards(str):
    def __lt__(self, other):
        return str(self) > str(other)


print(sorted([Backwards("a"), Backwards("c"), Backwards("b")]))


class Rank(int):
    def __lt__(self, other):
        return int(self) % 10 < int(other) % 10


print(sorted([Rank(21), Rank(19), Rank(5)]))
items = [5, 3, 9]
items.sort(reverse=True)
print(items)
try:
    sorted([1, "a"])
except TypeError as error:
    print("TypeError:", error)
try:
    sorted(["a", 1])
except TypeError as error:
    print("TypeError:", error)
print(sorted([5, -2, 5, 0, 2**62, -2**62], reverse=True))
print(sorted([1, True, 1, False, 0]), sorted([1, True, 1, False, 0], reverse=True))
print(sorted(list(range(30, 0, -3)) + list(range(10))))
