# Instances of a dict subclass are unhashable, as dicts are.
class Box(dict):
    pass


print(len({Box(): 1}))
