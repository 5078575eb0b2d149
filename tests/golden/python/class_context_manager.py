# `with` over user context managers: __enter__ value, __exit__ arguments,
# suppressing an exception, nesting order.
class Tag:
    def __init__(self, name, suppress=False):
        self.name = name
        self.suppress = suppress

    def __enter__(self):
        print("enter", self.name)
        return self.name.upper()

    def __exit__(self, exc_type, exc, tb):
        print("exit", self.name, exc_type.__name__ if exc_type else None, exc)
        return self.suppress


with Tag("a") as value:
    print("body", value)
with Tag("outer"), Tag("inner") as inner:
    print("nested", inner)
with Tag("quiet", suppress=True):
    raise ValueError("swallowed")
print("after")
try:
    with Tag("loud"):
        raise KeyError("k")
except KeyError as e:
    print("propagated", e)
