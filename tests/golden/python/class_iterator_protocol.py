# A user iterator: __iter__ returning self and __next__ raising StopIteration.
class Countdown:
    def __init__(self, start):
        self.current = start

    def __iter__(self):
        return self

    def __next__(self):
        if self.current <= 0:
            raise StopIteration
        self.current -= 1
        return self.current + 1


print(list(Countdown(3)))
it = Countdown(2)
print(next(it), next(it), next(it, "done"))
for n in Countdown(2):
    print("tick", n)
print(sum(Countdown(4)), sorted(Countdown(3)), dict(zip("ab", Countdown(2))))
