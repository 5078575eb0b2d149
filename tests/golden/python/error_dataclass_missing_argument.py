# The generated __init__ reports a missing field as a def would.
from dataclasses import dataclass


@dataclass
class Config:
    lr: float
    steps: int


Config(0.1)
