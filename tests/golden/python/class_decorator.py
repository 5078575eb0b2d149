# Class decorators: registering, and adding methods.
registry = {}


def register(cls):
    registry[cls.__name__] = cls
    return cls


def with_greeting(greeting):
    def decorate(cls):
        def greet(self):
            return f"{greeting}, {self.name}"
        cls.greet = greet
        return cls
    return decorate


@register
@with_greeting("Hi")
class Person:
    def __init__(self, name):
        self.name = name


print(sorted(registry), Person("Ada").greet(), registry["Person"] is Person)
