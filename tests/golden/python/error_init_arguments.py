class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b


print(Pair(1, 2).b)
Pair(1)
