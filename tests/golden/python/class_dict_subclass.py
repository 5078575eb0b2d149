# Subclassing dict: instances are real dicts (indexing, len, iteration,
# dict's methods, ==, json, isinstance), with the class's own methods and
# attributes, super().__init__, overridden __getitem__/__setitem__, and
# __missing__ (the idiom behind defaultdict-like classes).
import json


class AttrDict(dict):
    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name)

    def __setattr__(self, name, value):
        self[name] = value


config = AttrDict(lr=0.1, layers=2)
config.dropout = 0.5
print(config, config.lr, config["layers"], len(config), sorted(config), config.get("missing", "-"))
print(type(config).__name__, isinstance(config, dict), isinstance(config, AttrDict), type(config) is dict)
print(config == {"lr": 0.1, "layers": 2, "dropout": 0.5}, dict(config), json.dumps(config, sort_keys=True))
print(list(config.items()), "lr" in config, "x" in config, config.copy(), type(config.copy()).__name__)


class Counts(dict):
    def __missing__(self, key):
        return 0


counts = Counts()
for word in "the cat and the hat and the bat".split():
    counts[word] = counts[word] + 1
print(counts, counts["dog"], "dog" in counts, len(counts), counts.get("dog"))


class Registry(dict):
    def __init__(self, name, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.name = name
        self.writes = 0

    def __setitem__(self, key, value):
        self.writes += 1
        super().__setitem__(key.lower(), value)

    def __getitem__(self, key):
        return super().__getitem__(key.lower())

    def __repr__(self):
        return f"Registry({self.name!r}, {super().__repr__()})"


registry = Registry("ops", {"add": 1})
registry["MUL"] = 2
registry["Sub"] = 3
print(registry, registry["mul"], registry["ADD"], registry.writes, registry.name, len(registry))
print(repr(registry), str(registry), f"{registry}", vars(registry))
registry.update(div=4)  # dict.update does not call an overridden __setitem__
print(registry.writes, sorted(registry.keys()), list(registry.values()))
del registry["div"]
print(registry.pop("sub"), registry, bool(registry), bool(Registry("empty")))


class Ordered(dict):
    def __iter__(self):
        return iter(sorted(super().__iter__()))

    def __len__(self):
        return 42

    def __contains__(self, key):
        return key == "anything"


o = Ordered(b=1, a=2, c=3)
print(list(o), len(o), "anything" in o, "a" in o, [k for k in o], sorted(o.keys()), o)


class Base(dict):
    kind = "base"

    def describe(self):
        return f"{self.kind}: {sorted(self.items())}"


class Derived(Base):
    kind = "derived"


d = Derived(x=1)
d["y"] = 2
print(d.describe(), Derived.__mro__[1:], issubclass(Derived, dict), d | {"z": 3}, type(d | {"z": 3}).__name__)
print(dict.__getitem__(d, "x"), dict.get(d, "y"), {**d, "w": 0}, Derived(), Derived([("k", "v")]))


class Loose(dict):
    def __eq__(self, other):
        return True


# != is dict's own unless the class defines __ne__.
print(Loose() == {1: 2}, Loose() != {1: 2}, Loose(a=1) != {"a": 1}, {1: 2} != Loose())
