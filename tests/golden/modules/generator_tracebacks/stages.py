def numbers(values):
    for value in values:
        if value is None:
            continue
        yield value + 1


def scaled(values, factor):
    for number in numbers(values):
        yield number * factor
