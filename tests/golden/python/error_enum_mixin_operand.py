# An int mixin's member in arithmetic with a str: int's TypeError, naming the enum class.
from enum import Enum


class Level(int, Enum):
    LOW = 1


print(Level.LOW + 1, Level.LOW * "ab")
Level.LOW + "x"
