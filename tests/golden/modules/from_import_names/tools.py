SCALE = 10


def double(x):
    return 2 * x


def triple(x):
    return 3 * x
