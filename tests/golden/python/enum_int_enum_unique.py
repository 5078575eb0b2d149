# enum.IntEnum members act as their int values; enum.unique refuses aliases;
# members may carry tuples unpacked into __init__.
from enum import Enum, IntEnum, auto, unique


class Axis(IntEnum):
    BATCH = 0
    FEATURE = auto()


shape = [32, 128]
print(Axis.BATCH, repr(Axis.FEATURE), shape[Axis.FEATURE], Axis.FEATURE + 1, Axis.BATCH == 0, Axis.FEATURE > Axis.BATCH)
print(f"{Axis.FEATURE}", f"{Axis.FEATURE:>3}", sorted([Axis.FEATURE, Axis.BATCH]), int(Axis.FEATURE), 10 * Axis.FEATURE)
print(Axis(1), list(Axis), hash(Axis.BATCH) == hash(0))
try:
    @unique
    class Twice(Enum):
        A = 1
        B = 1
except ValueError as e:
    print(e)


class Planet(Enum):
    MERCURY = (3.303e23, 2.4397e6)
    EARTH = (5.976e24, 6.37814e6)

    def __init__(self, mass, radius):
        self.mass = mass
        self.radius = radius

    @property
    def surface_gravity(self):
        return 6.673e-11 * self.mass / (self.radius * self.radius)


print(Planet.EARTH.value, round(Planet.EARTH.surface_gravity, 3), Planet.MERCURY.mass)
