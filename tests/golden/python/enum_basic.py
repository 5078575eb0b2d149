# enum.Enum: members with name and value, auto(), aliases, iteration,
# lookup by value and by name, methods and properties on members.
from enum import Enum, auto


class Color(Enum):
    RED = 1
    GREEN = auto()
    BLUE = auto()
    CRIMSON = 1

    def describe(self):
        return f"{self.name.lower()} ({self.value})"

    @property
    def is_warm(self):
        return self is Color.RED


print(Color.RED, repr(Color.GREEN), Color.BLUE.name, Color.BLUE.value, Color.CRIMSON is Color.RED)
print(list(Color), len(Color), Color(2), Color["BLUE"], Color.RED in Color)
print(Color.GREEN.describe(), Color.RED.is_warm, Color.GREEN.is_warm)
print(Color, type(Color.RED), isinstance(Color.RED, Color), isinstance(Color.RED, Enum))
print(Color.RED == Color.RED, Color.RED == 1, Color.RED != Color.BLUE, {Color.RED: "r"}[Color.CRIMSON])
print(f"{Color.RED}", str(Color.BLUE), [c.name for c in Color], list(Color.__members__))
print(sorted(Color, key=lambda c: c.value, reverse=True))


class Mode(Enum):
    TRAIN = "train"
    EVAL = "eval"


print(Mode("eval"), Mode.TRAIN.value.upper(), Mode(Mode.TRAIN))
