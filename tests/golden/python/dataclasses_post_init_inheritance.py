# __post_init__, init=False fields, inheritance of fields, kw_only.
from dataclasses import dataclass, field


@dataclass
class Base:
    name: str
    size: int = 1


@dataclass
class Derived(Base):
    extra: float = 0.5
    area: int = field(init=False)

    def __post_init__(self):
        self.area = self.size * self.size


d = Derived("d", 3)
print(d, d.area, isinstance(d, Base))


@dataclass
class Options:
    lr: float
    verbose: bool = field(default=False, kw_only=True)
    seed: int = field(default=0, kw_only=True)


print(Options(0.1, seed=3), Options(lr=0.2, verbose=True))


@dataclass
class Counter:
    start: int
    history: list = field(default_factory=list, repr=False)

    def __post_init__(self):
        self.history.append(self.start)

    def bump(self):
        self.start += 1
        self.history.append(self.start)
        return self


c = Counter(5).bump().bump()
print(c, c.history)
