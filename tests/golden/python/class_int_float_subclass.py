# Subclassing int and float: instances are the number in arithmetic,
# comparisons, hashing, formatting and indexing, with the class's methods
# and attributes; arithmetic returns the base type, as CPython's does.
class Port(int):
    def describe(self):
        return f"port {int(self)} ({'privileged' if self < 1024 else 'user'})"

    @property
    def is_web(self):
        return self in (80, 443)


p = Port(8080)
print(p, repr(p), type(p).__name__, p.describe(), Port(80).is_web, p.is_web)
print(p + 1, type(p + 1).__name__, 1 + p, type(1 + p).__name__, p * 2, p // 3, p % 7, -p, abs(Port(-3)), p / 2)
print(p == 8080, p != 8080, p < 9000, 8080 == p, p > 8079.5, hash(p) == hash(8080), {p: "web"}[8080], {8080: "x"}[p])
print(isinstance(p, int), isinstance(p, Port), isinstance(p, float), issubclass(Port, int), type(p) is int)
print(f"{p:>6}|{p:x}|{p:,}", format(p, "08d"), "%d %s" % (p, p), str(p), int(p), type(int(p)).__name__, float(p))
print(["a", "b", "c"][Port(1)], "xyz"[Port(2)], list(range(Port(3))), [0] * Port(2), p.bit_length(), Port("42"), Port("ff", 16))
print(Port(), Port(3.9), Port(True), type(Port(True)).__name__, bool(Port(0)), bool(Port(5)), p is p, Port(5) is Port(5))
p.name = "http-alt"
print(p.name, p + 0, vars(p))


class Meters(float):
    unit = "m"

    def __str__(self):
        return f"{float(self)}{self.unit}"

    def to_feet(self):
        return self * 3.28084


m = Meters(2.5)
print(m, repr(m), f"{m}", f"{m:.1f}", m.to_feet(), type(m.to_feet()).__name__, m + 1, m * 2, 2 ** m, m.is_integer())
print(m == 2.5, m < 3, round(m), int(m), Meters(3), Meters("1.25"), Meters(), isinstance(m, float), sorted([Meters(3), 1, Meters(2)]))
print(max(Meters(1), Meters(4)), sum([Meters(1.5), Meters(2)]), type(sum([Meters(1.5), Meters(2)])).__name__)


class Celsius(float):
    def __repr__(self):
        return f"Celsius({float.__repr__(self)})"

    def __add__(self, other):
        return Celsius(float(self) + other)

    def __radd__(self, other):
        return Celsius(other + float(self))

    def __eq__(self, other):
        return isinstance(other, Celsius) and float(self) == float(other)

    def __hash__(self):
        return super().__hash__()


c = Celsius(20)
print(repr(c), c, str(c), c + 1.5, 1.5 + c, type(c - 1).__name__, c == 20.0, c == Celsius(20), c != Celsius(21))
print(hash(c) == hash(20.0), [c], {c: 1}, f"{c}", f"{c!r}")


class Count(int):
    def __new_count__(self):
        return Count(self + 1)

    def __lt__(self, other):
        return int(self) > int(other)  # reversed order

    def __bool__(self):
        return False


counts = sorted([Count(1), Count(3), Count(2)])
print(counts, [type(x).__name__ for x in counts], bool(Count(5)), not Count(5), Count(2) < Count(3), Count(2) > Count(3))
print(Count(4).__new_count__(), int.__add__(Count(2), 3), int.__lt__(Count(2), 3), super(Count, Count(9)).__lt__(10))
print(int.__add__(2, 2.0), float.__add__(2.0, 1), Port.__mro__, Port(7).__class__.__name__, dir(Port(1)) == dir(Port(2)))


class Flagged(int):
    pass


class Named(Flagged):
    def __init__(self, value):
        self.label = f"#{value}"


n = Named(12)
print(n, n.label, isinstance(n, Flagged), n + n, n << 2, n & 4, ~n, divmod(n, 5), pow(n, 2), round(n, -1), min(n, 3))
