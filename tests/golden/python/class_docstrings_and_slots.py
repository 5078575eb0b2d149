# Docstrings and __slots__ in a class body are plain class attributes here.
class Pixel:
    """A point on the screen."""

    __slots__ = ("x", "y")

    def __init__(self, x, y):
        "Makes a pixel."
        self.x = x
        self.y = y


p = Pixel(1, 2)
print(Pixel.__doc__, Pixel.__slots__, p.x + p.y)
