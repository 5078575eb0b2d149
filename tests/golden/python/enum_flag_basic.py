# enum.Flag: auto() powers of two, combining members with | & ^ ~, the
# pseudo-members' repr and str, iteration over a combined value's members,
# membership, bool, len, lookup by value, multi-bit members and aliases.
from enum import Flag, auto


class Color(Flag):
    RED = auto()
    GREEN = auto()
    BLUE = auto()
    WHITE = RED | GREEN | BLUE


print(Color.RED, repr(Color.RED), Color.RED.value, Color.BLUE.value, Color.WHITE, repr(Color.WHITE))
purple = Color.RED | Color.BLUE
print(purple, repr(purple), purple.value, purple.name, type(purple), isinstance(purple, Color))
print(list(purple), len(purple), bool(purple), len(Color.WHITE), list(Color.WHITE))
print(Color.RED in purple, Color.GREEN in purple, purple in Color.WHITE, Color.WHITE in purple)
print(~Color.RED, repr(~Color.RED), repr(~Color.WHITE), str(~Color.WHITE), (~Color.WHITE).name)
print(purple & Color.BLUE, purple ^ Color.WHITE, repr(Color.RED & Color.GREEN), bool(Color.RED & Color.GREEN))
print(Color(5), Color(5) is purple, Color(7) is Color.WHITE, Color(0), repr(Color(0)), Color(1) is Color.RED)
print(list(Color), len(Color), list(Color.__members__), Color.WHITE in Color, purple in Color)
print(f"{purple}", format(Color.RED), "{}".format(purple), [m.name for m in Color.WHITE])
print(Color.RED == Color.RED, purple == Color(5), purple != Color.RED, hash(purple) == hash(Color(5)))
print({Color.RED: "r", purple: "p"}[Color.RED | Color.BLUE])
print(Color._member_names_, sorted(Color._value2member_map_)[:3])

flags = Color(0)
for c in (Color.RED, Color.BLUE):
    flags |= c
print(flags, flags is purple)

try:
    Color(8)
except ValueError as error:
    print(error)
try:
    Color("red")
except ValueError as error:
    print(error)
try:
    Color.RED | 1
except TypeError as error:
    print(error)


class Perm(Flag):
    R = 4
    W = 2
    X = 1
    RWX = 7


print(list(Perm), repr(Perm.R | Perm.X), list(Perm.RWX), repr(~Perm.W), Perm(6))


class Spaced(Flag):
    A = 1
    B = 2
    C = 6


print(repr(Spaced(6)), list(Spaced), repr(Spaced.C | Spaced.A), Spaced.C.name)


class Style(Flag):
    BOLD = auto()
    ITALIC = auto()

    def describe(self):
        return "+".join(m.name.lower() for m in self) or "plain"


print((Style.BOLD | Style.ITALIC).describe(), Style(0).describe(), Style, Style.BOLD.describe())
