# A CONFORM flag drops unknown bits of an int, but a value that is no int is refused.
from enum import Flag, CONFORM


class Perm(Flag, boundary=CONFORM):
    R = 4
    W = 2


print(repr(Perm(7)), repr(Perm(9)))
Perm("rw")
