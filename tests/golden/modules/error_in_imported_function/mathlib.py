def divide(a, b):
    return a / b


def ratio(a, b):
    return divide(a, b)


def safe_ratio(a, b):
    return divide(a, b) if b else None
