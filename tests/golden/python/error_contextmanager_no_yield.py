# A @contextmanager function that never yields is a RuntimeError on entry.
from contextlib import contextmanager


@contextmanager
def broken():
    if False:
        yield


with broken():
    print("unreachable")
