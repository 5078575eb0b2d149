# Several live generators keep independent frames; closures see late values.
def ticker(name, step):
    value = 0
    while True:
        value += step
        yield f"{name}{value}"


a, b = ticker("a", 1), ticker("b", 10)
print([next(a), next(b), next(a), next(b), next(a)])


def make_gen():
    scale = 1
    def gen():
        for i in range(3):
            yield i * scale
    g = gen()
    scale = 100
    return g


print(list(make_gen()))
gens = [(i * j for j in range(3)) for i in range(3)]
print([list(g) for g in gens])
