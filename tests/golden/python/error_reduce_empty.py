# reduce of an empty iterable without an initial value.
import functools

functools.reduce(lambda a, b: a + b, [])
