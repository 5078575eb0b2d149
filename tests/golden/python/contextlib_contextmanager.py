# contextlib.contextmanager: the generator runs to its yield on entry, the
# rest on exit; the yielded value is the `as` target; finally always runs.
from contextlib import contextmanager


@contextmanager
def tag(name):
    print("enter", name)
    try:
        yield name.upper()
    finally:
        print("exit", name)


with tag("a") as value:
    print("body", value)
with tag("outer"), tag("inner") as inner:
    print("nested", inner)
try:
    with tag("failing"):
        raise ValueError("boom")
except ValueError as e:
    print("propagated", e)
print(tag.__name__)
