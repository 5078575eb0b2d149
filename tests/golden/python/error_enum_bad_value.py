# Looking an enum member up by a value none has.
from enum import Enum


class Color(Enum):
    RED = 1


Color(3)
