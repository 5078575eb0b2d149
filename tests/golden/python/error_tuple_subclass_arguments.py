# A tuple subclass is made by tuple's __new__: one iterable at most.
class Pair(tuple):
    def first(self):
        return self[0]


print(Pair([1, 2]).first())
print(Pair(1, 2))
