# enum.IntFlag is (int, ReprEnum, Flag) as in CPython 3.11: its members and
# pseudo-members are ints (isinstance, int's methods, hashing and indexing
# as the int), while | & ^ ~ between them still give members.
from enum import Flag, IntFlag, ReprEnum


class Perm(IntFlag):
    R = 4
    W = 2
    X = 1

    def describe(self):
        return f"{self.name}={int(self)}"


rw = Perm.R | Perm.W
print(IntFlag.__mro__)
print(Perm.__mro__)
print(isinstance(Perm.R, int), isinstance(rw, int), isinstance(Perm(8), int), issubclass(Perm, int))
print(isinstance(Perm.R, Flag), isinstance(Perm.R, ReprEnum), isinstance(rw, Perm))
print(Perm.R + 1, type(Perm.R + 1), Perm.R * 2, Perm.R // 3, Perm.R % 3, divmod(Perm.R, 3), Perm.R << 1, 2 ** Perm.W)
print(abs(Perm.R), -Perm.R, +Perm.R, type(+Perm.R), Perm.R.bit_length(), round(Perm.R), float(Perm.R), Perm.R / 8)
print(int(rw), type(int(rw)), int.__add__(Perm.R, 1), int.__repr__(Perm.R), Perm.R.__index__())
print(Perm.R < 5, 3 < Perm.R, Perm.R == 4, 4 == Perm.R, Perm.R == 4.0, Perm.R != 4, rw >= 6, max(Perm.R, 3))
print(hash(Perm.R) == hash(4), hash(rw) == hash(6), {4: "four"}[Perm.R], {Perm.R: 1}[4], 6 in {rw}, rw in {6})
print([10, 11, 12, 13, 14, 15, 16][rw], "abcdefg"[Perm.W:Perm.R], sum([Perm.R, Perm.W]), sorted([Perm.W, 3, Perm.R, 0]))
print(str(Perm.R), repr(Perm.R), format(Perm.R), f"{rw}", f"{rw:>5}|", f"{Perm.R:b}", "%d %s %r %x" % (Perm.R, rw, rw, rw))
print(type(rw), type(Perm.R & Perm.W), type(Perm.R ^ 3), type(~Perm.R), type(5 | Perm.R), repr(~Perm.R), repr(Perm.R ^ 3))
print(repr(Perm(0)), str(Perm(0)), bool(Perm(0)), bool(Perm.X), repr(Perm(8)), Perm(8) + 0, Perm(Perm.R) is Perm.R)
print(Perm.R.describe(), rw.describe(), Perm.R.value, type(Perm.R.value), rw.name, list(rw), Perm.W in rw)


class Small(IntFlag):
    A = 1
    B = 2


print(Perm.R | Small.B, type(Perm.R | Small.B), Small.A + Perm.X, Small.A == Perm.X, Small.B < Perm.R)
