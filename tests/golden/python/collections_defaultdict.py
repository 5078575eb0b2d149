# collections.defaultdict: missing keys are made by the factory on reading.
from collections import defaultdict

groups = defaultdict(list)
for word in ["apple", "bob", "avocado", "cat", "banana"]:
    groups[word[0]].append(word)
print(groups)
print(dict(groups), len(groups), "z" in groups, groups.get("z"))
counts = defaultdict(int)
for c in "mississippi":
    counts[c] += 1
print(sorted(counts.items()), counts.default_factory)
nested = defaultdict(lambda: defaultdict(int))
nested["a"]["b"] += 2
print(nested["a"]["b"], isinstance(nested, dict), type(nested).__name__)
plain = defaultdict(None, {"k": 1})
print(plain)
try:
    plain["missing"]
except KeyError as e:
    print("KeyError", e)
copy = counts.copy()
copy["new"] += 1
print(type(copy).__name__, copy["new"], "new" in counts)
