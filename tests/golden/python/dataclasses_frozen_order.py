# @dataclass(frozen=True, order=True): immutable, hashable, ordered by the
# fields as a tuple; frozen instances work as dict keys and set members.
import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int = 0


v = Version(1, 2)
print(v, hash(v) == hash(Version(1, 2)), v < Version(1, 3), v >= Version(1, 2), max(Version(0, 9), v))
print(sorted([Version(2), Version(1, 5), Version(1)]))
print({v: "ok"}[Version(1, 2)], len({Version(1), Version(1), Version(2)}))
try:
    v.major = 3
except dataclasses.FrozenInstanceError as e:
    print(type(e).__name__, e, isinstance(e, AttributeError))
try:
    del v.minor
except AttributeError as e:
    print(e)


@dataclass
class Mutable:
    value: int


try:
    hash(Mutable(1))
except TypeError as e:
    print(e)


@dataclass(unsafe_hash=True)
class Hashed:
    value: int


print(hash(Hashed(3)) == hash(Hashed(3)))


@dataclass(eq=False)
class Identity:
    value: int


i = Identity(1)
print(i == Identity(1), i == i, hash(i) == hash(i))
