# A Flag's members do not combine with ints (an IntFlag's do).
from enum import Flag, auto


class Color(Flag):
    RED = auto()
    GREEN = auto()


print(Color.RED | Color.GREEN)
print(Color.GREEN | 4)
