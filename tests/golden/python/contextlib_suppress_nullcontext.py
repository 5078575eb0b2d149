# contextlib.suppress swallows the listed exceptions (and their subclasses);
# nullcontext gives its argument and does nothing else.
from contextlib import suppress, nullcontext

with suppress(KeyError, IndexError):
    [][3]
print("after index")
with suppress(LookupError):
    {}["k"]
print("after lookup")
try:
    with suppress(KeyError):
        raise ValueError("kept")
except ValueError as e:
    print("kept", e)
with nullcontext() as nothing:
    print(nothing)
with nullcontext({"a": 1}) as d:
    print(d["a"])


def maybe_lock(use):
    return nullcontext(7) if not use else suppress()


with maybe_lock(False) as v:
    print(v)
