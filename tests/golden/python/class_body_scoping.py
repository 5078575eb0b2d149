# Class-body names are not visible inside methods; closures over an
# enclosing function's locals are.
x = "global"


def make(tag):
    class Local:
        x = "class attribute"
        label = tag + "!"
        doubled = [s * 2 for s in [label]]

        def method(self):
            return x, tag, self.x

    return Local


Local = make("t")
print(Local().method(), Local.label, Local.doubled)
print(Local.__qualname__, Local.method.__qualname__)


class Outer:
    class Inner:
        def who(self):
            return type(self).__qualname__

    def make_inner(self):
        return self.Inner()


print(Outer().make_inner().who(), Outer.Inner.__name__)
