ANSWER = 42


def greet(name):
    return "hello, " + name


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def norm2(self):
        return self.x * self.x + self.y * self.y
