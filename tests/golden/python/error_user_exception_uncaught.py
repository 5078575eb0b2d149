# An uncaught user exception: its last traceback line names the class.
class ShapeError(ValueError):
    pass


def check(shape):
    if len(shape) != 2:
        raise ShapeError(f"expected 2 dimensions, got {len(shape)}")
    return shape


print(check((1, 2)))
check((1, 2, 3))
