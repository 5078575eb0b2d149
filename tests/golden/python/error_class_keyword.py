# A class keyword that no base takes: object.__init_subclass__'s TypeError.
from enum import Flag, KEEP


class Bits(Flag, boundary=KEEP):
    A = 1


print(repr(Bits(3)))


class Plain(size=3):
    pass
