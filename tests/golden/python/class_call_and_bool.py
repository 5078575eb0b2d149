# __call__ makes instances callable; __bool__ and __len__ decide truth.
class Adder:
    def __init__(self, n):
        self.n = n

    def __call__(self, x, *, twice=False):
        return (x + self.n) * (2 if twice else 1)


add3 = Adder(3)
print(add3(4), add3(4, twice=True), callable(add3), callable(Adder), callable(3))
print(list(map(add3, [1, 2])))


class Falsy:
    def __bool__(self):
        return False


class Empty:
    def __len__(self):
        return 0


print(bool(Falsy()), bool(Empty()), bool(Adder(1)), "yes" if Falsy() else "no", not Empty())
