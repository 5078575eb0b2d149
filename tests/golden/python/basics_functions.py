# Defaults, keyword-only, *args/**kwargs, closures, lambdas, decorators.
def f(a, b=2, *rest, c, d=4, **extra):
    return (a, b, rest, c, d, sorted(extra.items()))

print(f(1, c=3))
print(f(1, 5, 6, 7, c=8, z=9, y=10))

def counter():
    count = 0
    def bump():
        nonlocal count
        count += 1
        return count
    return bump

c = counter()
c()
print(c(), c())

def twice(fn):
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) * 2
    return wrapper

@twice
def add(x, y):
    return x + y

print(add(2, 3), (lambda x, y=1: x - y)(5), sorted([3, -1, 2], key=lambda v: abs(v)))
funcs = [lambda i=i: i for i in range(3)]
print([g() for g in funcs])
