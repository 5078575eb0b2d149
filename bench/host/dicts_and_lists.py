# Dict and list work: building, indexing, counting words, sorting, slicing.
def run(n):
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    counts = {}
    items = []
    for i in range(n):
        word = words[(i * 7) % len(words)] + str(i % 13)
        counts[word] = counts.get(word, 0) + 1
        items.append(i % 101)
        if len(items) > 1000:
            items = sorted(items)[500:]
    keys = sorted(counts)
    squares = {k: counts[k] * counts[k] for k in keys}
    table = [[j * i for j in range(20)] for i in range(200)]
    total = sum(row[i % 20] for i, row in enumerate(table))
    return len(keys), sum(squares.values()) % 1000003, sum(items), total


print(run(500000))
