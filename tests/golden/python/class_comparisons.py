# Rich comparisons, reflected comparison, sorting and default equality.
class Version:
    def __init__(self, *parts):
        self.parts = parts

    def __eq__(self, other):
        return isinstance(other, Version) and self.parts == other.parts

    def __lt__(self, other):
        return self.parts < other.parts

    def __le__(self, other):
        return self.parts <= other.parts

    def __repr__(self):
        return "v" + ".".join(map(str, self.parts))


vs = [Version(1, 2), Version(1, 0, 5), Version(0, 9)]
print(sorted(vs), max(vs), min(vs))
print(Version(1) == Version(1), Version(1) != Version(2), Version(1) < Version(2))
print(Version(3) > Version(2), Version(2) >= Version(2))
print(Version(1) in vs, Version(1, 2) in vs)


class Plain:
    pass


p = Plain()
print(p == p, p == Plain(), p != Plain())
try:
    Plain() < Plain()
except TypeError as e:
    print(e)
