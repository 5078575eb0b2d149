# Field names must be identifiers that do not start with an underscore.
from collections import namedtuple

namedtuple("Bad", ["ok", "_hidden"])
