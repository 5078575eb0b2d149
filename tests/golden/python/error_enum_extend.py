# An enum with members cannot be subclassed.
from enum import Enum


class Color(Enum):
    RED = 1


class More(Color):
    BLUE = 2
