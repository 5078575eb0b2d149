# The bitwise augmented assignments: &= |= ^= <<= >>=, on ints, sets and
# through a subscript and an attribute.
x = 0b1100
x &= 0b1010
print(x)
x |= 0b0001
x ^= 0b1111
x <<= 3
x >>= 1
print(x)
s = {1, 2}
s |= {3}
s &= {2, 3}
s ^= {4}
print(sorted(s))
d = {"k": 6}
d["k"] |= 1
d["k"] <<= 2
print(d)


class Box:
    bits = 1


b = Box()
b.bits ^= 3
b.bits >>= 1
print(b.bits)
