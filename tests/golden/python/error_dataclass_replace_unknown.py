# replace() with a name that is no field.
from dataclasses import dataclass, replace


@dataclass
class Config:
    lr: float = 0.1


replace(Config(), rate=0.2)
