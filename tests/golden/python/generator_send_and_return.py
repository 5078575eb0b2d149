# send() values into a generator; its return value rides on StopIteration.
def accumulator():
    total = 0
    while True:
        value = yield total
        if value is None:
            return total
        total += value


acc = accumulator()
print(next(acc), acc.send(5), acc.send(10))
try:
    next(acc)
except StopIteration as stop:
    print("returned", stop.value if hasattr(stop, "value") else stop.args[0])


def echo():
    received = yield "ready"
    while True:
        received = yield f"got {received}"


e = echo()
print(next(e), e.send(1), e.send("two"))
try:
    echo().send(3)
except TypeError as error:
    print(error)
