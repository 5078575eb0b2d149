# typing.NamedTuple as a class base: annotated fields with defaults, methods,
# properties, class attributes; the class derives from tuple.
from typing import NamedTuple, Optional, Any


class TrainState(NamedTuple):
    step: int
    params: Any
    lr: float = 0.1
    note: Optional[str] = None

    def next(self):
        return self._replace(step=self.step + 1)

    @property
    def doubled_lr(self):
        return 2 * self.lr


s = TrainState(0, {"w": 1.0})
print(s)
print(s.next().next(), s.doubled_lr, s._fields, TrainState._field_defaults)
print(TrainState.__bases__, TrainState.__mro__, isinstance(s, tuple))
step, params, lr, note = s
print(step, params, lr, note, s[-1], s._asdict())
print(TrainState(step=3, params=None, lr=0.5) == (3, None, 0.5, None))
Pair = NamedTuple("Pair", [("first", int), ("second", int)])
print(Pair(1, 2), Pair._fields)
print(TrainState.__annotations__["step"], TrainState.step)
