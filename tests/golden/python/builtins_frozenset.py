# frozenset: an immutable set, hashable (a dict key, a set member), equal
# to a set of the same items; set operations give the left operand's type.
f = frozenset([3, 1, 2, 1])
print(type(f).__name__, len(f), sorted(f), 2 in f, 5 in f, isinstance(f, frozenset), isinstance(f, set))
print(frozenset(), repr(frozenset()), frozenset('a'), frozenset(['x']) == {'x'}, {'x'} == frozenset(['x']))
print(hash(frozenset([1, 2])) == hash(frozenset([2, 1])), {frozenset([1, 2]): 'pair'}[frozenset([2, 1])])
print(len({frozenset([1]), frozenset([1]), frozenset([2])}))
u = f | {4}
s = {4} | f
print(type(u).__name__, sorted(u), type(s).__name__, sorted(s))
print(type(f & {1, 9}).__name__, sorted(f - {1}), sorted(f ^ {1, 7}), f <= {1, 2, 3, 4}, f < f, f >= frozenset([1]))
print(sorted(f.union([8])), sorted(f.intersection({2, 3, 4})), sorted(f.difference([3])), type(f.copy()).__name__)
print(sorted(f.symmetric_difference([3, 4])), f.isdisjoint([7, 8]), f.isdisjoint([3]), f.issubset(range(5)), f.issuperset([1]))
print(sorted({1, 2}.symmetric_difference([2, 3])), {1}.isdisjoint(frozenset([2])))
try:
  f.add(4)
except AttributeError as e:
  print('AttributeError', e)
try:
  hash({1})
except TypeError as e:
  print('TypeError', e)
names = frozenset({'cos'})
print('cos' in names, 'sin' in names, names)
