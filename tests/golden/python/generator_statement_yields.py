# Generators whose yields are statements of their own, inside ifs, whiles and
# for loops (and their else branches), with break, continue and return around
# them: next, send, throw and close at each kind of place, errors raised in
# the body and in the loops' iterables, and generators dropped half-way.
def counted(n):
    i = 0
    while i < n:
        if i % 2:
            yield i
        else:
            yield -i
        i += 1
    else:
        yield "while-else"
    for j in range(2):
        yield j * 10
    else:
        yield "for-else"
    return "done"


print(list(counted(4)))
gen = counted(1)
print(next(gen), next(gen), next(gen), next(gen), next(gen))
try:
    next(gen)
except StopIteration as stop:
    print("returned", stop.value)


def nested(rows):
    for row in rows:
        if not row:
            continue
        for item in row:
            if item is None:
                break
            if item < 0:
                return "negative"
            yield item
        else:
            yield "row-end"
    yield "end"


print(list(nested([[1, 2], [], [3, None, 4], [5]])))
print(list(nested([[1], [-1, 2], [3]])))


def throwable():
    for i in range(3):
        yield i
    yield "after"


gen = throwable()
print(next(gen), next(gen))
try:
    gen.throw(ValueError("thrown in"))
except ValueError as error:
    print("came out:", error)
print(list(gen))

gen = throwable()
try:
    gen.throw(KeyError, "before the start")
except KeyError as error:
    print("unstarted:", error)

gen = throwable()
print(next(gen))
gen.close()
print(list(gen))
gen.close()

gen = throwable()
print(next(gen))
try:
    gen.send(5)
    print(next(gen))
    gen.send("x")
except StopIteration:
    print("stopped")
try:
    throwable().send(1)
except TypeError as error:
    print(error)


def failing(values):
    for v in values:
        yield 10 // v


gen = failing([5, 2, 0, 1])
print(next(gen), next(gen))
try:
    next(gen)
except ZeroDivisionError as error:
    print(type(error).__name__, error)
print(list(gen))

try:
    list(failing(7))
except TypeError as error:
    print(error)


def stops():
    for v in [1]:
        yield v
        raise StopIteration("inside")


try:
    list(stops())
except RuntimeError as error:
    print(error, "|", repr(error.__cause__))


def recursive(tree):
    for child in tree:
        if isinstance(child, list):
            for leaf in recursive(child):
                yield leaf
        else:
            yield child


print(list(recursive([1, [2, [3, 4], []], 5])))


def itself():
    for _ in range(2):
        yield next(me)


me = itself()
try:
    next(me)
except ValueError as error:
    print(error)


class Rising:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        self.n -= 1
        if self.n < 0:
            raise StopIteration
        if self.n == 1:
            raise LookupError("at one")
        return self.n


def over(iterable):
    for item in iterable:
        yield item


gen = over(Rising(4))
print(next(gen), next(gen))
try:
    next(gen)
except LookupError as error:
    print("iterator raised", error)

half = over(range(10 ** 6))
print(next(half), next(half))
del half


def empty_loop(items):
    for item in items:
        yield item
    while False:
        yield "never"


print(list(empty_loop([])), list(empty_loop("ab")))


def bare():
    for _ in range(2):
        yield


print(list(bare()))
total = 0
for value in over(counted(3)):
    if isinstance(value, int):
        total += value
print(total)


def outer():
    for value in failing([1, 0]):
        yield value


print(list(outer()))
