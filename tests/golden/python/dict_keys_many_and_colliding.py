# Dicts and sets with many keys, keys whose hashes collide, and keys erased
# and added again: every key is found, and the order stays insertion order.
d = {}
for i in range(0, 4000, 8):  # ints whose low bits are all the same
    d[i] = i * i
d.update({-i: i for i in range(1, 200)})
d[2**62] = "big"
d[-(2**62)] = "small"
print(len(d), d[3992], d[-199], d[2**62], d[-(2**62)], 8 in d, 9 in d)
print(sum(d[k] for k in range(0, 4000, 8)))

# Erasing most keys, then adding them back in another order.
for i in range(0, 4000, 16):
    del d[i]
print(len(d), list(d)[:5], 16 in d, 24 in d)
for i in range(3984, -1, -16):
    d[i] = -i
print(len(d), list(d)[-3:], d[0], d[16], d[24])

# 1, 1.0 and True are one key; so are strings built apart.
e = {1: "int"}
e[1.0] = "float"
e[True] = "bool"
print(e, {0: "a", False: "b", 0.0: "c"})
words = {"alpha" + str(i): i for i in range(300)}
print(words["alpha" + "2" + "99"], words.get("alpha300"), len(words))


# Keys whose hashes all collide, and one whose == changes the dict.
class Same:
    def __init__(self, n):
        self.n = n

    def __hash__(self):
        return 7

    def __eq__(self, other):
        return isinstance(other, Same) and other.n == self.n

    def __repr__(self):
        return "Same(%d)" % self.n


s = {Same(i): i for i in range(50)}
print(len(s), s[Same(49)], s[Same(0)], Same(50) in s)
del s[Same(25)]
s[Same(25)] = "again"
print(list(s)[-2:], s[Same(25)])


class Meddler:
    armed = False

    def __hash__(self):
        return 1

    def __eq__(self, other):
        if Meddler.armed:
            table.clear()
        return False


key = Meddler()
table = {key: 1, 1: "one"}
Meddler.armed = True
print(table.get(Meddler(), "missing"), len(table))

# Sets share the table: erasing and adding, unions and differences.
t = set(range(1000))
for i in range(0, 1000, 3):
    t.discard(i)
t |= {0, 3, 6}
print(len(t), 0 in t, 9 in t, 10 in t, sorted(t)[:6])
print(len(t - set(range(500))), len(t & {1, 2, 3, 4}))

# popitem and setdefault through a table with erased entries.
p = {k: k for k in range(40)}
for k in range(0, 40, 2):
    p.pop(k)
print(p.popitem(), p.setdefault(0, "zero"), p.setdefault(1, "one"), list(p)[:4], len(p))
p.clear()
p["x"] = 1
print(p)
