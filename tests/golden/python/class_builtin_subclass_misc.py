# Subclassing tuple, str, set and frozenset: instances made from the call's
# arguments (their type's __new__), real values of their type, with their
# class's methods; hashing and == as the base type's unless overridden.
class Pair(tuple):
    def swap(self):
        return Pair(reversed(self))

    @property
    def first(self):
        return self[0]


p = Pair([1, 2])
print(p, p.swap(), p.first, len(p), p + (3,), type(p + (3,)).__name__, p == (1, 2), hash(p) == hash((1, 2)))
print(isinstance(p, tuple), type(p).__name__, {p: "pair"}[(1, 2)], tuple(p), type(tuple(p)).__name__, Pair())
a, b = p
print(a, b, p.count(1), p.index(2), sorted(p, reverse=True), p[::-1], max(p), list(p))


class Name(str):
    def shout(self):
        return self.upper() + "!"

    def __repr__(self):
        return f"Name({str.__repr__(self)})"


n = Name("ada")
print(n, repr(n), n.shout(), n + " lovelace", type(n + "x").__name__, len(n), n[0], n == "ada", "d" in n)
print(isinstance(n, str), f"{n}|{n:>5}|", str(n), type(str(n)).__name__, {n: 1}["ada"], n.replace("a", "o"), sorted(Name("cab")))
print(", ".join([n, Name("grace")]), n.startswith("a"), n * 2, Name(42), Name(), repr(Name()))


class Tags(set):
    def add_all(self, *tags):
        for t in tags:
            self.add(t)
        return self


tags = Tags(["b"])
tags.add_all("a", "c")
print(sorted(tags), len(tags), "a" in tags, isinstance(tags, set), tags == {"a", "b", "c"}, Tags(), repr(Tags([1])))
print(sorted(tags | {"d"}), type(tags | {"d"}).__name__, sorted(tags & {"a", "z"}), bool(Tags()), tags.issubset({"a", "b", "c", "d"}))


class Frozen(frozenset):
    def describe(self):
        return "-".join(sorted(self))


f = Frozen("xy")
print(f.describe(), repr(Frozen([1])), Frozen(), {f: 1}[frozenset("yx")], len(f), type(f).__name__, f == frozenset("xy"))


class Point(tuple):
    def __eq__(self, other):
        return isinstance(other, Point) and tuple(self) == tuple(other)


print(Point((1, 2)) == Point((1, 2)), Point((1, 2)) == (1, 2), Point.__hash__)
