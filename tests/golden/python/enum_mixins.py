# Enums mixing in a built-in type: members are instances of it (str, int,
# float), compare and hash as their values, have its methods, and print as
# CPython 3.11 prints them (Enum's str() and format() for a plain mixin;
# the value's for IntEnum and StrEnum, which are ReprEnums).
import enum
from enum import Enum, IntEnum, StrEnum, ReprEnum, auto


class Mode(str, Enum):
    TRAIN = "train"
    EVAL = "eval"

    def describe(self):
        return f"{self.name.lower()} mode ({len(self)} letters)"


print(Mode.TRAIN == "train", "eval" == Mode.EVAL, Mode.TRAIN.upper(), Mode.TRAIN + "!", Mode.EVAL[1:], len(Mode.TRAIN))
print(str(Mode.TRAIN), f"{Mode.TRAIN}", format(Mode.EVAL), f"{Mode.EVAL:>12}|", repr(Mode.TRAIN), Mode.TRAIN.value)
print(Mode("eval"), Mode["TRAIN"], Mode(Mode.EVAL) is Mode.EVAL, isinstance(Mode.TRAIN, str), isinstance(Mode.TRAIN, Mode))
print({Mode.TRAIN: 1}["train"], {"eval": 2}[Mode.EVAL], hash(Mode.TRAIN) == hash("train"), Mode.TRAIN.describe())
print(Mode.__mro__, list(Mode), "train" in [m.value for m in Mode], sorted(Mode), Mode.TRAIN < Mode.EVAL)


class Level(int, Enum):
    LOW = 1
    MEDIUM = 5
    HIGH = "10"


print(Level.LOW + 1, Level.HIGH * 2, Level.MEDIUM > Level.LOW, Level.HIGH == 10, Level(10), Level.HIGH.value, type(Level.HIGH.value).__name__)
print(str(Level.LOW), f"{Level.LOW}", f"{Level.LOW!r}", format(Level.MEDIUM, ">12"), ["a", "b"][Level.LOW], sum(Level), max(Level))
print(isinstance(Level.LOW, int), hash(Level.MEDIUM) == hash(5), {5: "five"}[Level.MEDIUM], sorted([Level.HIGH, Level.LOW]), -Level.MEDIUM)


class Ratio(float, Enum):
    HALF = 0.5
    THIRD = 1 / 3

    @property
    def percent(self):
        return f"{self * 100:.0f}%"


print(Ratio.HALF * 4, Ratio.HALF.percent, Ratio.THIRD.percent, Ratio(0.5), repr(Ratio.THIRD), Ratio.HALF.is_integer())


class Priority(IntEnum):
    LOW = auto()
    HIGH = auto()


print(Priority.LOW, str(Priority.HIGH), f"{Priority.HIGH}", f"{Priority.HIGH:03d}", repr(Priority.LOW), Priority.HIGH + 1)
print(isinstance(Priority.LOW, int), Priority(2), Priority.__mro__, list(range(Priority.HIGH)), Priority.HIGH.bit_length())


class Color(StrEnum):
    RED = auto()
    DARK_BLUE = auto()
    GREEN = "Green"


print(Color.RED, repr(Color.DARK_BLUE), f"{Color.GREEN}|{Color.RED:>6}|", Color.RED == "red", Color("Green"), Color.GREEN.lower())
print(Color.__mro__, [c.value for c in Color], issubclass(Color, str), issubclass(Color, ReprEnum), "-".join(Color))


class Axis(str, Enum):
    def _generate_next_value_(name, start, count, last_values):
        return f"{name.lower()}{count}"

    BATCH = auto()
    MODEL = auto()


print(Axis.BATCH.value, Axis.MODEL, repr(Axis.MODEL), [a.value for a in Axis], Axis("model1").name)


class Dtype(str, Enum):
    F32 = "float32"
    BF16 = "bfloat16"

    def __str__(self):
        return self.value

    @classmethod
    def parse(cls, text):
        return cls(text.lower())


print(Dtype.F32, f"{Dtype.BF16}", Dtype.parse("FLOAT32") is Dtype.F32, Dtype.F32.startswith("float"), enum.unique(Dtype) is Dtype)
