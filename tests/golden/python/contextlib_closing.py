# contextlib.closing calls close() on the way out, even after an error.
from contextlib import closing


class Connection:
    def __init__(self, name):
        self.name = name

    def close(self):
        print("closed", self.name)


with closing(Connection("db")) as c:
    print("using", c.name)
try:
    with closing(Connection("other")):
        raise KeyError("x")
except KeyError:
    print("error seen")
