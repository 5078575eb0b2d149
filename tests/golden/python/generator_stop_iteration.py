# StopIteration raised inside a generator becomes RuntimeError (PEP 479);
# a return ends the iteration cleanly.
def early():
    yield 1
    return
    yield 2


print(list(early()))


def leaky():
    yield 1
    raise StopIteration


try:
    list(leaky())
except RuntimeError as e:
    print("RuntimeError:", e)

it = iter([])
try:
    next(it)
except StopIteration:
    print("plain StopIteration")
