# A NamedTuple field without a default cannot follow one with a default.
from typing import NamedTuple


class Bad(NamedTuple):
    a: int = 0
    b: int
