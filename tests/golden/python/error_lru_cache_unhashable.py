# lru_cache needs hashable arguments.
import functools


@functools.lru_cache
def total(values):
    return sum(values)


print(total((1, 2)))
total([1, 2])
