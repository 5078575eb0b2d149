# A named tuple needs every field without a default.
from collections import namedtuple

Point = namedtuple("Point", "x y")
Point(1)
