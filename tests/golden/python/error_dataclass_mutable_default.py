# A list default is refused: each instance must get its own (default_factory).
from dataclasses import dataclass


@dataclass
class Bad:
    items: list = []
