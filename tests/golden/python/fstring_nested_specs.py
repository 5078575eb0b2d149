# f-string format specs with fields of their own, conversions with specs,
# and escaped braces.
x = 3.14159
name = "ab"
width, digits = 10, 3
print(f"{x:{width}.{digits}f}|")
print(f"{x:>{width}}|{name:*<6}|")
print(f"{name!r:>10}|{name!s:^8}|")
print(f"{'nested'!r:^{width}}|")
print(f"{{literal}} {x:.1e} {{{name}}}")
for align in "<^>":
    print(f"[{name:{align}{width - 4}}]")
values = [1.5, 22.25, 333.125]
column = max(len(f"{v:.2f}") for v in values)
for v in values:
    print(f"{v:>{column}.2f}")
print(f"{255:#0{width}x}", f"{1234567:,}", f"{0.25:.0%}")
