# `in` on a Flag value takes members of its class only.
from enum import Flag, auto


class Color(Flag):
    RED = auto()
    GREEN = auto()


print(Color.RED in (Color.RED | Color.GREEN))
print(1 in Color.RED)
