# auto() asks the class's _generate_next_value_(name, start, count,
# last_values): the body's own, else the one the last enum base has (its
# own or inherited, as EnumType.__prepare__ takes it). StrEnum's gives the
# name in lower case, to its subclasses too.
from enum import Enum, Flag, IntEnum, StrEnum, auto


class AutoName(Enum):
    def _generate_next_value_(name, start, count, last_values):
        return name


class Color(AutoName):
    RED = auto()
    GREEN = auto()


class Shade(Color.__mro__[1]):
    DARK = auto()


print(Color.RED.value, Color.GREEN, repr(Color.GREEN), Shade.DARK.value, Color("RED") is Color.RED)
print("_generate_next_value_" in Color.__dict__, "_generate_next_value_" in AutoName.__dict__, list(Color))


class Counted(Enum):
    @staticmethod
    def _generate_next_value_(name, start, count, last_values):
        return (name, start, count, list(last_values))


class Letters(Counted):
    A = 10
    B = auto()
    C = auto()


print(Letters.B.value, Letters.C.value, Letters(("B", 1, 1, [10])) is Letters.B)


class Upper(Counted):
    def _generate_next_value_(name, start, count, last_values):
        return name.upper() * (count + 1)

    x = auto()
    y = auto()


print(Upper.x.value, Upper.y.value)


class Lower(StrEnum):
    pass


class Words(Lower):
    Alpha = auto()
    BETA = auto()


print(repr(Words.Alpha), Words.BETA.value, Words.BETA == "beta", f"{Words.Alpha}")


class Level(IntEnum):
    LOW = auto()
    HIGH = auto()


class Bits(Flag):
    A = auto()
    B = auto()


print(repr(Level.HIGH), repr(Bits.B))


class NamedInts(int, Enum):
    def _generate_next_value_(name, start, count, last_values):
        return len(name) * 10


class Sizes(NamedInts):
    S = auto()
    MEDIUM = auto()


print(repr(Sizes.MEDIUM), Sizes.S + 1, isinstance(Sizes.S, int))
