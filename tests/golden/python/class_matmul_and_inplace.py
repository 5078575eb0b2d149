# __matmul__/__rmatmul__ and in-place operators with and without __iadd__.
class M:
    def __init__(self, rows):
        self.rows = rows

    def __matmul__(self, other):
        n = len(other.rows[0])
        return M([[sum(a * other.rows[k][j] for k, a in enumerate(row)) for j in range(n)] for row in self.rows])

    def __repr__(self):
        return f"M({self.rows})"


class Acc:
    def __init__(self):
        self.items = []

    def __iadd__(self, item):
        self.items.append(item)
        return self


class Plain:
    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        return Plain(self.v + other)


x = M([[1, 2], [3, 4]])
print(x @ M([[1, 0], [0, 1]]), x @ x)
acc = Acc()
same = acc
acc += 1
acc += 2
print(acc.items, acc is same)
p = Plain(1)
q = p
p += 5
print(p.v, q.v, p is q)
