# The comparison dunders of str, list, tuple, dict, set and frozenset, called
# directly and through super() from a subclass that overrides them:
# the type's own comparison, NotImplemented with an operand it cannot
# compare with; str's, tuple's and frozenset's __hash__; and str.__str__,
# which gives the text itself.
print("a".__lt__("b"), "b".__ge__("a"), "a".__eq__("a"), "a".__ne__("a"))
print("a".__eq__(1), "a".__lt__(1), [1].__eq__((1,)), (1, 2).__lt__((1, 3)))
print([1, 2].__le__([1, 2]), [1].__gt__([0, 5]), {1: 2}.__eq__({1: 2}), {1: 2}.__ne__({1: 3}))
print({1: 2}.__lt__({1: 2}), {1}.__lt__({1, 2}), {1, 2}.__ge__({2}), frozenset([1]).__eq__({1}))
print(str.__lt__("a", "b"), list.__eq__([], []), tuple.__gt__((2,), (1,)), set.__le__(set(), {1}))
print("a".__str__(), repr("a".__str__()), str.__str__("b"))
print("ab".__hash__() == hash("ab"), (1, "a").__hash__() == hash((1, "a")), frozenset([2]).__hash__() == hash(frozenset([2])))
for call in (lambda: str.__lt__(1, "a"), lambda: list.__len__(1)):
    try:
        call()
    except TypeError as error:
        print(error)


class Name(str):
    def __eq__(self, other):
        return super().__eq__(other.lower() if isinstance(other, str) else other)

    def __hash__(self):
        return super().__hash__() ^ 1

    def __lt__(self, other):
        return super().__lt__(other)


name = Name("ada")
print(name == "ADA", name == "bob", name == 3, name < "b", sorted([Name("c"), Name("a")]))
print(hash(name) == hash("ada") ^ 1, {name: 1}[Name("ada")])


class Row(list):
    def __eq__(self, other):
        return list.__eq__(self, list(other)) if isinstance(other, tuple) else super().__eq__(other)


print(Row([1, 2]) == (1, 2), Row([1]) == [1], Row([1]) == [2], Row([1]) != [1])
print(sorted([(2, "b"), (1, "z"), (2, "a")], key=lambda pair: pair), max(["b", "ab"]))
try:
    "a" < 1
except TypeError as error:
    print(error)
