# A dataclass with properties, class methods, static methods and its own
# __repr__ (which the decorator keeps).
from dataclasses import dataclass


@dataclass
class Config:
    depth: int = 2
    width: int = 64

    @property
    def parameters(self):
        return self.depth * self.width * self.width

    @classmethod
    def small(cls):
        return cls(1, 8)

    @staticmethod
    def describe(n):
        return f"{n} parameters"

    def __repr__(self):
        return f"Config<{self.depth}x{self.width}>"


c = Config.small()
print(c, c.parameters, Config.describe(c.parameters), Config() == Config(2, 64))
