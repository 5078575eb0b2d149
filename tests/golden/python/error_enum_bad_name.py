# Looking an enum member up by a name none has.
from enum import Enum


class Color(Enum):
    RED = 1


Color["BLUE"]
