# __repr__ and __str__: print, str(), repr(), f-strings and containers.
class Vec:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __repr__(self):
        return f"Vec({self.x!r}, {self.y!r})"


class Named(Vec):
    def __str__(self):
        return f"<{self.x}, {self.y}>"


v = Vec(1, 2.5)
n = Named("a", 3)
print(v, repr(v), str(v), [v], {"k": v})
print(n, repr(n), str(n), [n], f"{n} {n!r}")
