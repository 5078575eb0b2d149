# Multiple inheritance: C3 linearisation and cooperative super().
class Base:
    def hello(self):
        return ["Base"]


class Left(Base):
    def hello(self):
        return ["Left"] + super().hello()


class Right(Base):
    def hello(self):
        return ["Right"] + super().hello()


class Child(Left, Right):
    def hello(self):
        return ["Child"] + super().hello()


print(Child().hello())
print([c.__name__ for c in Child.__mro__])


class A: pass
class B: pass
class C(A, B): pass
class D(B, A): pass
print([k.__name__ for k in C.__mro__], [k.__name__ for k in D.__mro__])
print(isinstance(C(), B), issubclass(D, A), issubclass(C, (int, B)))
