# collections.namedtuple: fields by name and index, defaults, _replace,
# _asdict, _make, _fields, tuple behaviour (unpacking, equality, hashing).
from collections import namedtuple

Point = namedtuple("Point", "x y")
p = Point(1, y=2)
print(p, p.x, p[1], len(p), p == (1, 2), p == Point(1, 2), hash(p) == hash((1, 2)))
x, y = p
print(x + y, p._replace(x=10), p._asdict(), Point._make([5, 6]), Point._fields)
print(isinstance(p, tuple), type(p).__name__, Point.__name__, p + (3,), sorted([Point(2, 1), Point(1, 5)]))
Config = namedtuple("Config", ["lr", "steps", "name"], defaults=[100, "run"])
print(Config(0.1), Config(0.1, 5, name="x"), Config._field_defaults)
Renamed = namedtuple("Renamed", ["a", "def", "a", "_b"], rename=True)
print(Renamed._fields)
print({p: "point"}[Point(1, 2)], max(p), p.count(1), p.index(2))


class Vector(namedtuple("Vector", "x y")):
    def norm2(self):
        return self.x ** 2 + self.y ** 2

    def __repr__(self):
        return f"<{self.x}, {self.y}>"


v = Vector(3, 4)
print(v, v.norm2(), v._replace(y=0), isinstance(v, tuple))
