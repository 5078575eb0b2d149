# Generators resumed from yields at several depths: the rest of the yield's
# body, then each statement around it going on (a loop's next run, an if's
# end) out to the function's body. Breaks, continues and returns after a
# yield leave the bodies around them; else branches that yield; loops that
# are left and entered again; values sent and exceptions thrown at each depth.
def flows(rows):
    for row in rows:
        for item in row:
            if item == "skip":
                yield "skipping"
                continue
            if item == "stop":
                yield "stopping"
                break
            if item == "end":
                yield "ending"
                return "ended early"
            yield item
            yield item * 2
        else:
            yield "row done"
        yield "after row"
    else:
        yield "all rows"
    return "ended"


def drain(gen):
    items = []
    while True:
        try:
            items.append(next(gen))
        except StopIteration as stop:
            items.append(("return", stop.value))
            return items


print(drain(flows([[1, "skip", 2], ["stop", 3], [4]])))
print(drain(flows([[1], ["end", 5], [6]])))
print(drain(flows([])))


def countdown(n):
    while n > 0:
        if n % 3 == 0:
            yield "fizz"
        elif n % 5 == 0:
            yield "buzz"
            if n > 5:
                yield "big buzz"
        else:
            yield n
        n -= 1
    else:
        yield "liftoff"
        yield "gone"
    yield "after"


print(list(countdown(11)))


def loop_entered_again():
    for outer in range(3):
        total = 0
        for inner in range(outer + 1):
            total += inner
            yield outer, inner
        yield "total", total
    while True:
        yield "forever"
        break
    yield "out"


print(list(loop_entered_again()))


def receiver():
    seen = []
    for i in range(4):
        if i % 2:
            seen.append((yield i))
        else:
            yield -i
        yield "between"
    yield seen


gen = receiver()
print(next(gen), gen.send("a"), gen.send("b"), gen.send("c"), next(gen), next(gen), next(gen), next(gen), next(gen))


def deep():
    for a in range(2):
        if a >= 0:
            while True:
                for b in "xy":
                    yield a, b
                break
            yield "after while", a
    yield "done"


for position in range(7):
    gen = deep()
    for _ in range(position):
        next(gen)
    try:
        gen.throw(KeyError(position))
    except KeyError as error:
        print("thrown at", position, "came out", error)
    print("then", list(gen))

gen = deep()
print(next(gen), gen.send("dropped"), gen.send(None))
gen.close()
print("closed", list(gen))


def consumer(source):
    for value in source:
        if isinstance(value, int) and value % 2:
            yield value
    yield "source done"


def source(n):
    i = 0
    while i < n:
        yield i
        i += 1


print(list(consumer(source(7))))
pipeline = consumer(consumer(source(5)))
print(next(pipeline), next(pipeline), list(pipeline))


def inner_then_outer(rows):
    for row in rows:
        for item in row:
            yield item
        for item in reversed(row):
            yield -item


print(list(inner_then_outer([[1, 2], [], [3]])))


class Counter:
    def __init__(self):
        self.count = 0

    def steps(self, n):
        for i in range(n):
            self.count += 1
            yield self.count
            if self.count > 3:
                return


counter = Counter()
print(list(counter.steps(2)), list(counter.steps(5)), counter.count)
