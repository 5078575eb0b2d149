class Circle:
    def __init__(self, r):
        self.r = r

    @property
    def area(self):
        return 3 * self.r * self.r


c = Circle(2)
print(c.area)
c.area = 5
