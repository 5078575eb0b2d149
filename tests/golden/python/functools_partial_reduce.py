# functools.partial (positional and keyword, nested) and reduce.
import functools
import operator


def power(base, exponent, scale=1):
    return scale * base ** exponent


square = functools.partial(power, exponent=2)
print(square(3), square(3, scale=10), square.func.__name__, square.args, square.keywords)
cube_of_two = functools.partial(power, 2, 3)
print(cube_of_two(), cube_of_two(scale=2))
nested = functools.partial(functools.partial(power, 2), 5)
print(nested())
print(functools.reduce(operator.add, [1, 2, 3, 4]), functools.reduce(lambda a, b: a * b, [], 1))
print(functools.reduce(lambda acc, w: acc + len(w), ["ab", "cde"], 0))
