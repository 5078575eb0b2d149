def keys(table):
    for key in table:
        if key:
            yield key


def chained(table):
    for key in keys(table):
        yield key.upper()
