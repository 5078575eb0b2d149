# A @contextmanager generator that yields twice: "generator didn't stop".
from contextlib import contextmanager


@contextmanager
def twice():
    yield 1
    yield 2


with twice() as value:
    print(value)
