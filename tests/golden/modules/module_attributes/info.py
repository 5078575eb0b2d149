CONSTANT = 1


def helper():
    return CONSTANT


def read_added():
    return added
