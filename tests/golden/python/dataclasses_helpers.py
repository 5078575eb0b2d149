# asdict, astuple (recursive), replace, is_dataclass, fields.
import dataclasses
from dataclasses import dataclass, asdict, astuple, replace, field
from typing import NamedTuple


class Pair(NamedTuple):
    a: int
    b: int


@dataclass
class Inner:
    values: list
    pair: Pair


@dataclass(frozen=True)
class Outer:
    name: str
    inner: Inner
    mapping: dict = field(default_factory=dict)


o = Outer("o", Inner([1, 2], Pair(3, 4)), {"k": Inner([], Pair(0, 0))})
print(asdict(o))
print(astuple(o))
r = replace(o, name="renamed")
print(r.name, r.inner is o.inner, o.name)
print(dataclasses.is_dataclass(o), dataclasses.is_dataclass(Outer), dataclasses.is_dataclass(3))
print([f.name for f in dataclasses.fields(o)], dataclasses.fields(Inner)[1].type is Pair)
print(dataclasses.MISSING is dataclasses.fields(Outer)[0].default)
