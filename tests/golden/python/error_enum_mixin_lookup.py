# Looking a mixin enum's member up by a value it lacks: ValueError naming the class.
from enum import Enum


class Mode(str, Enum):
    TRAIN = "train"


print(Mode("train"), Mode.TRAIN == "train")
Mode("test")
