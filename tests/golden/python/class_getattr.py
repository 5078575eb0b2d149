# __getattr__ runs only for missing attributes.
class Proxy:
    def __init__(self, target):
        self.target = target

    def __getattr__(self, name):
        if name.startswith("secret"):
            raise AttributeError(name)
        return getattr(self.target, name)


p = Proxy([3, 1, 2])
p.append(0)
print(p.target, p.count(1), hasattr(p, "secret_key"), hasattr(p, "index"))


class Defaults:
    x = 1

    def __getattr__(self, name):
        return f"<{name}>"


d = Defaults()
print(d.x, d.y, getattr(d, "z"))
