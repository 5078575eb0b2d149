# Recursive calls: fib(32) makes 7 million calls of a two-line function.
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


print(fib(32))
