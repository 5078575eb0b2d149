# A __missing__ that raises: its error is the lookup's.
class Strict(dict):
    def __missing__(self, key):
        raise LookupError(f"no {key!r} here")


s = Strict(a=1)
print(s["a"], s.get("b"))
print(s["b"])
