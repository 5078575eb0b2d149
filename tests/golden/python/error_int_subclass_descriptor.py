# int's dunders reached through the type check their receiver.
class Meters(float):
    pass


print(float.__add__(Meters(1.5), 2), int.__add__(3, Meters(1.5)))
int.__add__(Meters(1.5), 2)
