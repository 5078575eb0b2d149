# functools.lru_cache and cache: results kept per arguments, cache_info,
# cache_clear, eviction of the least recently used entry.
import functools

calls = []


@functools.lru_cache(maxsize=None)
def fib(n):
    calls.append(n)
    return n if n < 2 else fib(n - 1) + fib(n - 2)


print(fib(40), len(calls), fib.cache_info())
fib.cache_clear()
print(fib.cache_info())


@functools.lru_cache(maxsize=2)
def square(x):
    print("computing", x)
    return x * x


for x in [1, 2, 1, 3, 2, 1]:
    print(square(x))
info = square.cache_info()
print(info, info.hits, info.misses, info.maxsize, info.currsize)


@functools.cache
def with_keywords(a, b=1):
    print("computing", a, b)
    return a + b


print(with_keywords(1), with_keywords(1), with_keywords(1, b=2), with_keywords(1, b=2))


@functools.lru_cache
def bare(x):
    return x


print(bare(3), bare.cache_info().misses, bare.__name__)
