# An enum may mix in one built-in data type only: CPython's lay-out conflict.
from enum import Enum


class Mode(str, Enum):
    TRAIN = "train"


print(Mode.TRAIN.value)


class Both(int, str, Enum):
    A = 1
