# `with` over an object without __enter__/__exit__ is a TypeError.
class Plain:
    pass


with Plain():
    pass
