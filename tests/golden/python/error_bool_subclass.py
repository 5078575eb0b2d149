# bool cannot be subclassed: CPython's TypeError when the class is made.
class Port(int):
    pass


print(Port(1) + True)


class Strict(bool):
    pass
