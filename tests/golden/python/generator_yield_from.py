# yield from: delegation, the inner generator's return value, plain iterables.
def inner(n):
    for i in range(n):
        received = yield i
        if received:
            print("inner got", received)
    return n * 10


def outer():
    result = yield from inner(3)
    print("inner returned", result)
    yield from "ab"
    yield from [True, None]
    return "outer done"


print(list(outer()))
g = outer()
print(next(g), g.send("hello"), next(g))


def flatten(items):
    for item in items:
        if isinstance(item, list):
            yield from flatten(item)
        else:
            yield item


print(list(flatten([1, [2, [3, [4]], 5], [[6]]])))
