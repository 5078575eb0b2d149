d = {"a": 1}
print(d["a"])
d["b"]
