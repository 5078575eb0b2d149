# Assigning to a field of a frozen dataclass.
from dataclasses import dataclass


@dataclass(frozen=True)
class Config:
    lr: float = 0.1


c = Config()
c.lr = 0.2
