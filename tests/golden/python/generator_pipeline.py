# Generator pipelines and lazy generator expressions.
def numbers():
    n = 0
    while True:
        yield n
        n += 1


def take(n, items):
    for i, item in enumerate(items):
        if i >= n:
            return
        yield item


evens = (x for x in numbers() if x % 2 == 0)
squares = (x * x for x in evens)
print(list(take(5, squares)))
print(sum(x for x in range(100)), max(len(w) for w in ["a", "abc", "ab"]))
print(any(x > 3 for x in numbers()), all(x < 3 for x in [1, 2, 5]))
print(dict((k, k * k) for k in range(3)), sorted(x for x in {3, 1, 2}))
lazy = (print("computing", x) or x for x in [1, 2])
print("made")
print(next(lazy))
