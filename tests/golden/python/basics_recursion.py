# Recursion: fib, mutual recursion, deep-but-legal depth.
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)


print(fib(20), is_even(10), is_odd(7), depth(500))
