# _replace with a name that is no field.
from typing import NamedTuple


class State(NamedTuple):
    step: int


State(0)._replace(stpe=1)
