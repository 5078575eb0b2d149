# A field without a default cannot follow one with a default.
from dataclasses import dataclass


@dataclass
class Bad:
    a: int = 0
    b: int
