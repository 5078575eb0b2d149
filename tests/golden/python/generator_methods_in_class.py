# Generators as methods and __iter__ written as a generator.
class Tree:
    def __init__(self, value, *children):
        self.value = value
        self.children = children

    def __iter__(self):
        yield self.value
        for child in self.children:
            yield from child

    def depth_first(self, depth=0):
        yield depth, self.value
        for child in self.children:
            yield from child.depth_first(depth + 1)


t = Tree(1, Tree(2, Tree(3)), Tree(4))
print(list(t), sum(t), 3 in t)
print(list(t.depth_first()))
