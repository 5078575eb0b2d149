# A pipeline of generators: a source, a filter, a map and a windowed sum.
def numbers(n):
    for i in range(n):
        yield i


def evens(values):
    for v in values:
        if v % 2 == 0:
            yield v


def squares(values):
    for v in values:
        yield v * v


def windows(values, size):
    window = []
    for v in values:
        window.append(v)
        if len(window) == size:
            yield sum(window)
            window = []


def run(n):
    total = 0
    for w in windows(squares(evens(numbers(n))), 4):
        total = (total + w) % 1000000007
    gen_total = sum(x % 17 for x in range(n // 2) if x % 3)
    return total, gen_total


print(run(2000000))
