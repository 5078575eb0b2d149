# object.__new__ takes the class only, when the class defines its own __new__.
class Point:
    def __new__(cls, x, y):
        return super().__new__(cls)

    def __init__(self, x, y):
        self.x, self.y = x, y


print(Point(1, 2).y)


class Bad:
    def __new__(cls, x):
        return super().__new__(cls, x)


Bad(1)
