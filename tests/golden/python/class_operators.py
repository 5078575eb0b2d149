# Arithmetic dunders, reflected operands, NotImplemented, unary operators.
class Money:
    def __init__(self, cents):
        self.cents = cents

    def __repr__(self):
        return f"Money({self.cents})"

    def __add__(self, other):
        if isinstance(other, Money):
            return Money(self.cents + other.cents)
        if isinstance(other, int):
            return Money(self.cents + other)
        return NotImplemented

    def __radd__(self, other):
        return self.__add__(other)

    def __sub__(self, other):
        return Money(self.cents - other.cents)

    def __mul__(self, k):
        return Money(self.cents * k)

    __rmul__ = __mul__

    def __truediv__(self, k):
        return Money(self.cents // k)

    def __neg__(self):
        return Money(-self.cents)

    def __abs__(self):
        return Money(abs(self.cents))


a, b = Money(150), Money(75)
print(a + b, a - b, a * 2, 3 * b, a / 4, -a, 5 + a, a + 5)
print(sum([a, b, Money(1)]))
try:
    a + "x"
except TypeError as e:
    print("TypeError:", e)
