class Point:
    def moved(self, dx):
        return dx


p = Point()
print(p.moved(1))
p.moved(1, 2)
