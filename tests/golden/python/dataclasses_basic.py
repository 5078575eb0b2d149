# @dataclass: the generated __init__, __repr__ and __eq__, defaults and
# default_factory, class attributes, fields().
from dataclasses import dataclass, field, fields
from typing import ClassVar, List, Optional


@dataclass
class Point:
    x: int
    y: int = 0
    tags: List[str] = field(default_factory=list)
    instances: ClassVar[int] = 0


p = Point(1)
q = Point(1, tags=["a"])
print(p, q, p == Point(1), p == q, p != Point(2))
p.tags.append("mine")
print(p.tags, Point(5).tags, Point.y, Point.instances)
print([(f.name, f.type) for f in fields(Point)], fields(Point)[1].default)
print(Point.__dataclass_fields__["x"].init, len(fields(Point)))


@dataclass
class Layer:
    name: str
    width: int = 128
    activation: Optional[str] = field(default="relu", repr=False)
    scale: float = field(default=1.0, compare=False)


a, b = Layer("dense"), Layer("dense", scale=2.0)
print(a, a == b, repr(b))
print(Point.__eq__(p, 3))
