# `from module import a, b as c` binds the members themselves.
from tools import double, triple as three_times, SCALE
print(double(4), three_times(4), SCALE)
from tools import (
    double as d2,
    SCALE as s2,
)
print(d2 is double, s2)
# expect: 8 12 10
# expect: True 10
