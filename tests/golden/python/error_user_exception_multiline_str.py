# An uncaught user exception whose __str__ has several lines: the
# traceback's last lines show the whole of it after the class's name.
class ShapeMismatch(Exception):
    def __init__(self, expected, got):
        super().__init__(expected, got)
        self.expected, self.got = expected, got

    def __str__(self):
        return f"expected {self.expected}\n     got {self.got}"


try:
    raise ShapeMismatch((2, 3), (3, 2))
except ShapeMismatch as error:
    print(str(error).splitlines())
raise ShapeMismatch((4,), (5,))
