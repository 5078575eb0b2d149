# super() in classmethods, two-argument super(), super() through three levels.
class A:
    def describe(self):
        return "A"

    @classmethod
    def create(cls):
        return f"A.create for {cls.__name__}"


class B(A):
    def describe(self):
        return "B>" + super().describe()

    @classmethod
    def create(cls):
        return "B>" + super().create()


class C(B):
    def describe(self):
        return "C>" + super(C, self).describe()


print(C().describe(), B.create(), C.create())
print(super(B, C()).describe())
