def divide(a, b):
    return a // b


def middle(a):
    value = divide(10, a)
    return value
