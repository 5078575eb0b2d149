# f-string `=` fields: the expression's text, then its repr (or its format
# with a spec, or its str with !s).
x = 3.14159
name = "ab"
items = [1, 2]
print(f"{x=}")
print(f"{x = }")
print(f"{x = :.2f}")
print(f"{name=}, {name=!s}, {name=!r:>6}")
print(f"{items[0]=}, {len(items)=}, {x*2=:.1f}")
print(f"{x==3.14159=}")
print(f"{1 != 2=} {2 <= 3=}")
