# enum.Flag's boundary= (CPython 3.11): STRICT refuses a value with bits no member
# has, CONFORM drops those bits, EJECT returns the plain int, KEEP keeps them
# in a pseudo-member; FlagBoundary is a StrEnum, its members also the module's names.
import enum
from enum import Flag, IntFlag, auto, STRICT, CONFORM, EJECT, KEEP, FlagBoundary
print(repr(STRICT), str(KEEP), FlagBoundary.CONFORM.value, list(FlagBoundary), Flag._boundary_, IntFlag._boundary_)
class Perm(Flag, boundary=CONFORM):
    R = 4
    W = 2
    X = 1
print(Perm(15), repr(Perm(9)), Perm(8), repr(Perm(0)), Perm._boundary_)
class Eject(Flag, boundary=EJECT):
    A = 1
    B = 2
print(Eject(3), Eject(7), type(Eject(7)).__name__, repr(~Eject.A), Eject(-1))
class Kept(Flag, boundary=KEEP):
    A = 1
    B = 4
print(repr(Kept(3)), repr(Kept(7)), repr(~Kept.A), Kept(16).value)
class Strict(Flag, boundary=STRICT):
    A = 1
    B = 2
print(repr(Strict(3)), repr(~Strict.A))
class Color(IntFlag, boundary=STRICT):
    R = 1
    G = 2
print(repr(Color(3)), Color.R | 2)
class Plain(enum.Enum, boundary=STRICT):
    A = 1
print(Plain.A)
