# Single inheritance: overriding, super().__init__, method resolution.
class Animal:
    sound = "..."

    def __init__(self, name):
        self.name = name

    def speak(self):
        return f"{self.name} says {self.sound}"

    def kind(self):
        return "animal"


class Dog(Animal):
    sound = "woof"

    def __init__(self, name, tricks):
        super().__init__(name)
        self.tricks = tricks

    def kind(self):
        return "dog, an " + super().kind()


d = Dog("Rex", ["sit"])
print(d.speak(), d.kind(), d.tricks)
print(isinstance(d, Animal), isinstance(d, Dog), issubclass(Dog, Animal), issubclass(Animal, Dog))
print(type(d) is Dog, type(d) is Animal, Dog.__bases__ == (Animal,))
print([c.__name__ for c in Dog.__mro__])
