# @staticmethod and @classmethod, called on the class and on instances.
class Point:
    dims = 2

    def __init__(self, x, y):
        self.x, self.y = x, y

    @classmethod
    def origin(cls):
        return cls(0, 0)

    @classmethod
    def dimensions(cls):
        return cls.dims

    @staticmethod
    def distance(a, b):
        return ((a.x - b.x) ** 2 + (a.y - b.y) ** 2) ** 0.5


class Point3(Point):
    dims = 3


p = Point.origin()
print(p.x, p.y, type(p).__name__, type(Point3.origin()).__name__)
print(Point.dimensions(), Point3.dimensions(), Point3(1, 1).dimensions())
print(Point.distance(Point(0, 0), Point(3, 4)), p.distance(p, Point(1, 0)))
