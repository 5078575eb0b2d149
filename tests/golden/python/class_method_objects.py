# Bound methods are first-class: stored, passed, compared by their function.
class Greeter:
    def __init__(self, name):
        self.name = name

    def greet(self, other):
        return f"{self.name} greets {other}"


g = Greeter("Ann")
hello = g.greet
print(hello("Bob"), list(map(g.greet, ["C", "D"])))
print(Greeter.greet(g, "E"), Greeter.greet.__name__, hello.__name__ if hasattr(hello, "__name__") else "greet")
