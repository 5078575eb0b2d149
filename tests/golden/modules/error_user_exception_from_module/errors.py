class NegativeError(Exception):
    pass


def check(x):
    if x < 0:
        raise NegativeError(f"{x} is negative")
