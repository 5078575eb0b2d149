# A defaultdict subclass's first argument is the default factory: callable or None.
from collections import defaultdict


class Groups(defaultdict):
    def add(self, key, item):
        self[key].append(item)


g = Groups(list)
g.add("a", 1)
print(g, g["b"])
Groups(5)
