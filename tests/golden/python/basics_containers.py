# Lists, tuples, dicts and sets: methods and their printed forms.
xs = [3, 1, 2]
xs.append(5)
xs.extend([0, 4])
xs.sort()
print(xs, xs.index(3), xs.pop(), xs.pop(0), xs)
xs.insert(1, 9)
xs.remove(9)
print(xs, sorted(xs, reverse=True), list(reversed(xs)), xs[::2])
t = (1, "a", None, 2.5)
print(t, t[1:], len(t), t.count(None), (1,) + (2,))
d = {"b": 2, "a": 1}
d["c"] = 3
print(d, list(d), list(d.values()), list(d.items()), d.get("z", 0))
print(d.pop("b"), d, {**d, "x": 0}, dict(zip("ab", [1, 2])))
s = {3, 1, 2}
print(sorted(s), 2 in s, sorted(s | {9}), sorted(s & {1, 2}), sorted(s - {1}), len(s))
print([x * x for x in range(5) if x % 2 == 0], {k: v for k, v in [(1, 2)]})
