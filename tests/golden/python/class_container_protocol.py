# __len__, __getitem__, __setitem__, __delitem__, __contains__, __iter__, __bool__.
class Bag:
    def __init__(self):
        self.data = {}

    def __len__(self):
        return len(self.data)

    def __getitem__(self, key):
        return self.data[key]

    def __setitem__(self, key, value):
        self.data[key] = value

    def __delitem__(self, key):
        del self.data[key]

    def __contains__(self, key):
        return key in self.data

    def __iter__(self):
        return iter(sorted(self.data))


b = Bag()
print(len(b), bool(b))
b["x"] = 1
b["a"] = 2
print(len(b), b["x"], "a" in b, "z" not in b, list(b), bool(b))
del b["x"]
print(list(b), [k for k in b])
try:
    b["missing"]
except KeyError as e:
    print("KeyError", e)


class Squares:
    def __getitem__(self, i):
        if i >= 4:
            raise IndexError(i)
        return i * i


print(list(Squares()), 9 in Squares())
