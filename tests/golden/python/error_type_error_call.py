def f(a, b):
    return a + b

f(1, 2, 3)
