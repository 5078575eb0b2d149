# __hash__ with __eq__ makes instances usable as dict keys and set members;
# __eq__ alone makes them unhashable.
class Key:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, Key) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


d = {Key("a"): 1}
d[Key("a")] += 10
d[Key("b")] = 2
print(len(d), d[Key("a")], Key("b") in d, len({Key("x"), Key("x"), Key("y")}))


class NoHash:
    def __eq__(self, other):
        return True


try:
    {NoHash(): 1}
except TypeError as e:
    print(e)


class Identity:
    pass


i = Identity()
print({i: 1}[i], len({Identity(), Identity()}))
