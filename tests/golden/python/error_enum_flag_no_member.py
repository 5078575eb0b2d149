# Looking a Flag value up by a str.
from enum import Flag


class Color(Flag):
    RED = 1
    GREEN = 2


print(Color(3))
Color("RED")
