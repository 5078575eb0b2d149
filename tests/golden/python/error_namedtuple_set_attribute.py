# Named tuples are immutable.
from collections import namedtuple

Point = namedtuple("Point", "x y")
p = Point(1, 2)
p.x = 5
