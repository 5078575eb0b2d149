# from __future__ import annotations: annotations may name what is defined later.
from __future__ import annotations


def make(n: Node | None = None) -> Node:
    return Node(n)


class Node:
    def __init__(self, child: Node | None):
        self.child = child

    def depth(self) -> int:
        return 1 + (self.child.depth() if self.child else 0)


print(make(make()).depth())
