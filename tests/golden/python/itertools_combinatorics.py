# itertools.product, permutations, combinations in CPython's order.
import itertools

print(list(itertools.product("ab", [1, 2])))
print(list(itertools.product([0, 1], repeat=3)))
print(list(itertools.product()))
print(list(itertools.permutations([1, 2, 3])))
print(list(itertools.permutations("abcd", 2)))
print(list(itertools.combinations(range(5), 3)))
print(list(itertools.combinations("ab", 3)))
print(list(itertools.combinations_with_replacement("abc", 2)))
print(sum(1 for _ in itertools.permutations(range(6))))
