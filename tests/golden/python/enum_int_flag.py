# enum.IntFlag: members are ints in arithmetic and comparisons, combine with
# each other and with ints (keeping unknown bits), print as ints; repr as Flag.
from enum import IntFlag, auto


class Perm(IntFlag):
    R = 4
    W = 2
    X = 1


rw = Perm.R | Perm.W
print(rw, repr(rw), str(rw), rw.value, rw.name, rw == 6, rw + 1, int(rw), rw & 4, repr(rw & 4))
print(repr(Perm.R | 8), repr(Perm(8)), Perm(8), repr(Perm(0)), Perm(0), repr(~Perm.R), repr(~rw))
print(Perm.R | 1, type(Perm.R | 1), repr(6 | Perm.X), repr(Perm.X ^ 3), Perm(7) is (rw | Perm.X))
print(list(rw), len(rw), Perm.W in rw, Perm.X in rw, bool(Perm(0)), list(Perm))
print(f"{rw}", f"{rw:>4}", format(Perm.X, "03d"), "%s" % rw, sorted(Perm), max(Perm), Perm.R > Perm.W)
print([0, 1, 2, 3, 4, 5, 6][Perm.R], {6: "six"}[rw], hash(rw) == hash(6), Perm(Perm.R) is Perm.R)


class Mode(IntFlag):
    READ = auto()
    WRITE = auto()
    APPEND = auto()


print(list(Mode), Mode.APPEND.value, repr(Mode.READ | Mode.APPEND), Mode.READ + Mode.WRITE, -Mode.WRITE)
