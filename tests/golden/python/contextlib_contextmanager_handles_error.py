# A @contextmanager generator that catches the block's exception swallows
# it; one that re-raises another replaces it.
from contextlib import contextmanager


@contextmanager
def catching(kind):
    try:
        yield
    except kind as e:
        print("caught", type(e).__name__, e)


@contextmanager
def translating():
    try:
        yield
    except KeyError as e:
        raise ValueError("translated " + str(e))


with catching(ZeroDivisionError):
    print(1 / 0)
print("after catching")
try:
    with catching(KeyError):
        raise IndexError("not this one")
except IndexError as e:
    print("passed through", e)
try:
    with translating():
        {}["missing"]
except ValueError as e:
    print(e, type(e.__context__).__name__)
