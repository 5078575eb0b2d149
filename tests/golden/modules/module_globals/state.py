counter = 0


def bump():
    global counter
    counter += 1


def read_name():
    return __name__
