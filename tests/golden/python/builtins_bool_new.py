# bool.__new__ is bool's own, not int's: bool.__new__(bool, x) is bool(x);
# int.__new__ refuses to make a bool, and bool() and float() take one
# positional argument, with CPython's words for more.
print(bool.__new__ is int.__new__, bool.__new__(bool, 3), bool.__new__(bool, 0), bool.__new__(bool), bool(3), bool())
print(type(bool.__new__(bool, [])), bool.__new__(bool, "x"), bool.__new__(bool, []), int.__new__(int, 5), float.__new__(float))
print(bool.__new__ is float.__new__, int.__new__ is float.__new__, float(), float("2.5"), bool(0.0), bool(None))


class Truthy:
    def __bool__(self):
        return False


print(bool.__new__(bool, Truthy()), bool(Truthy()))


def attempt(make):
    try:
        print(make())
    except TypeError as error:
        print("TypeError:", error)


attempt(lambda: bool.__new__(int, 3))
attempt(lambda: int.__new__(bool, 3))
attempt(lambda: bool.__new__(Truthy))
attempt(lambda: bool.__new__(bool, 1, 2))
attempt(lambda: bool(1, 2))
attempt(lambda: bool(x=1))
attempt(lambda: float(1, 2))
attempt(lambda: float(x=1))
attempt(lambda: bool.__new__(3))
