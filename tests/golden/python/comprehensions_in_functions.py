# List, set and dict comprehensions inside functions (compiled with the
# function's body): several clauses and conditions, targets read by inner
# comprehensions and lambdas, names of the function read, targets that do
# not leak, errors raised from their parts.
def basics(n):
    x = "kept"
    squares = [x * x for x in range(n)]
    evens = {x for x in range(n) if x % 2 == 0}
    table = {x: x * x for x in range(n) if x > 1 if x != 3}
    return x, squares, sorted(evens), table


print(basics(6))


def nested(rows, columns):
    grid = [[row * 10 + column for column in range(columns)] for row in range(rows)]
    flat = [value for line in grid for value in line if value % 3]
    pairs = [(a, b) for a in range(3) for b in range(a)]
    transposed = [[grid[r][c] for r in range(rows)] for c in range(columns)]
    return grid, flat, pairs, transposed


print(nested(3, 4))


def closures():
    late = [lambda: i for i in range(3)]
    bound = [lambda i=i: i for i in range(3)]
    return [f() for f in late], [f() for f in bound]


print(closures())


def unpacking(pairs):
    heads = [(first, rest) for first, *rest in ["abc", "d"]]
    return [a + b for a, b in pairs], {k: v for k, v in pairs}, heads


print(unpacking([(1, 2), (3, 4)]))


def bad_unpacking(items):
    try:
        return [a for a, b in items]
    except ValueError as error:
        return str(error)


print(bad_unpacking([(1, 2), (3,)]), bad_unpacking([(1, 2, 3)]))


def over_iterators(words):
    lengths = {len(w) for w in iter(words)}
    numbered = {i: w for i, w in enumerate(words)}
    letters = [c for w in (w.upper() for w in words) for c in w if c in "AEIOU"]
    return sorted(lengths), numbered, letters


print(over_iterators(["alpha", "be", "gamma"]))


def generated(n):
    for i in range(n):
        yield [i * j for j in range(i)]


print(list(generated(4)))


class Table:
    def __init__(self, names):
        self.names = names

    def index(self):
        return {name: position for position, name in enumerate(self.names)}

    def upper(self):
        return [name.upper() for name in self.names if name]


table = Table(["a", "", "c"])
print(table.index(), table.upper())


def errors():
    results = []
    try:
        [1 // x for x in [1, 0]]
    except ZeroDivisionError as error:
        results.append(str(error))
    try:
        {[x] for x in range(2)}
    except TypeError as error:
        results.append(str(error))
    try:
        {[x]: x for x in range(2)}
    except TypeError as error:
        results.append(str(error))
    try:
        [x for x in 5]
    except TypeError as error:
        results.append(str(error))
    try:
        [x for x in range(3) if x.missing]
    except AttributeError as error:
        results.append(str(error))
    try:
        [undefined_name for x in range(1)]
    except NameError as error:
        results.append(str(error))
    return results


for line in errors():
    print(line)


def growing():
    items = [1, 2, 3]
    seen = [items.append(x) or x for x in items if len(items) < 6]
    return seen, items


print(growing())
