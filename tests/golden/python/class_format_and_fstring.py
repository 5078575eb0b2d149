# __format__ for format specs, __str__ for plain fields.
class Celsius:
    def __init__(self, degrees):
        self.degrees = degrees

    def __format__(self, spec):
        if spec == "f":
            return f"{self.degrees * 9 / 5 + 32:.1f}F"
        return format(self.degrees, spec) + "C"

    def __str__(self):
        return f"{self.degrees}C"


c = Celsius(21.5)
print(f"{c}", f"{c:f}", f"{c:.0f}", format(c, ">8"), str(c), "{:f}".format(c))
