# When the right operand's type is a proper subclass of the left operand's
# and provides a different reflected method, that method is tried first
# (CPython's binary_op1); a comparison tries the right operand's reflected
# method first whenever its type is a proper subclass of the left's.
class Base:
    def __init__(self, n):
        self.n = n

    def __add__(self, other):
        return f"Base.__add__({self.n}, {other.n})"

    def __radd__(self, other):
        return f"Base.__radd__({self.n}, {other.n})"

    def __sub__(self, other):
        return f"Base.__sub__({self.n}, {other.n})"

    def __lt__(self, other):
        return f"Base.__lt__({self.n}, {other.n})"

    def __gt__(self, other):
        return f"Base.__gt__({self.n}, {other.n})"

    def __eq__(self, other):
        return f"Base.__eq__({self.n}, {other.n})"

    __hash__ = object.__hash__


class Derived(Base):
    def __radd__(self, other):
        return f"Derived.__radd__({self.n}, {other.n})"

    def __gt__(self, other):
        return f"Derived.__gt__({self.n}, {other.n})"


class Plain(Base):  # overrides nothing
    pass


class Declines(Base):
    def __radd__(self, other):
        return NotImplemented

    def __gt__(self, other):
        return NotImplemented


b, d, p, x = Base(1), Derived(2), Plain(3), Declines(4)
print(b + d, d + b, b + p, p + b, d + d)
print(b - d, b + x, b < d, d > b, b < p, b < x, b == d, d == b, b == p)
print(b > d, p < d, d < p)


class Money(int):
    def __radd__(self, other):
        return f"Money.__radd__({int(self)}, {other})"

    def __rmul__(self, other):
        return NotImplemented

    def __gt__(self, other):
        return f"Money.__gt__({int(self)}, {other})"


class Euros(Money):
    def __rsub__(self, other):
        return f"Euros.__rsub__({int(self)}, {other})"


print(3 + Money(4), Money(4) + 3, 3 * Money(4), 2 < Money(5), Money(5) < 2)
print(Money(1) + Euros(2), Money(7) - Euros(2), Euros(7) - Money(2), Money(1) < Euros(2), Money(1) * Euros(2))


class Vector(list):
    def __radd__(self, other):
        return Vector(other) + ["reflected"]

    def __lt__(self, other):
        return "Vector.__lt__"

    def __gt__(self, other):
        return "Vector.__gt__"


print([1] + Vector([2]), Vector([2]) + [1], [1] < Vector([2]), Vector([1]) < [2])
