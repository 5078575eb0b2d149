# int, bool and float have the parts numbers.Complex and numbers.Rational
# name: real, imag and conjugate(); int's numerator and denominator;
# as_integer_ratio(), and float's is_integer(). Read through the type they
# are attributes (getset descriptors) and unbound methods.
for x in [3, -7, 0, True, False, 2.5, -0.0, 1e300, float("inf")]:
    parts = [repr(getattr(x, name)) for name in ("real", "imag", "numerator", "denominator") if hasattr(x, name)]
    print(repr(x), parts, [type(getattr(x, name)).__name__ for name in ("real", "imag")], repr(x.conjugate()))

print((2.5).is_integer(), (2.0).is_integer(), (-3.0).is_integer(), float("nan").is_integer(), float("inf").is_integer())
print((2.5).as_integer_ratio(), (-0.75).as_integer_ratio(), (0.1).as_integer_ratio(), (0.0).as_integer_ratio())
print((1024.0).as_integer_ratio(), (-6.0).as_integer_ratio(), (1 / 3).as_integer_ratio(), (0.001).as_integer_ratio())
print((3).as_integer_ratio(), (-12).as_integer_ratio(), True.as_integer_ratio(), type(True.real).__name__)
print(int.real, float.imag, type(int.numerator).__name__, int.conjugate(4), float.as_integer_ratio(0.5), float.is_integer(1.0))
print(hasattr(1.5, "numerator"), hasattr(1, "is_integer"), (7).real + (7).imag, sum(x.real for x in [1, 2.5, True]))


class Meters(float):
    pass


class Count(int):
    pass


print(repr(Meters(1.5).real), type(Meters(1.5).real).__name__, Meters(2.0).is_integer(), Meters(0.25).as_integer_ratio())
print(repr(Count(9).numerator), type(Count(9).numerator).__name__, Count(9).denominator, Count(4).conjugate())
for bad in [float("inf"), float("nan")]:
    try:
        bad.as_integer_ratio()
    except (OverflowError, ValueError) as error:
        print(type(error).__name__, error)
try:
    (5).real = 6
except AttributeError as error:
    print("AttributeError")
