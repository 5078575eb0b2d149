# Comprehension variables do not leak; nested comprehensions; conditions.
x = "outer"
squares = [x * x for x in range(4)]
print(x, squares)
matrix = [[i * 3 + j for j in range(3)] for i in range(3)]
print([row[i] for i, row in enumerate(matrix)], [v for row in matrix for v in row if v % 2])
print({v: k for k, v in {"a": 1, "b": 2}.items()}, sorted({len(w) for w in ["aa", "b", "cc"]}))
