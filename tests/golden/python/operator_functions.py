# operator: the operators as functions, itemgetter, attrgetter, methodcaller.
import operator
from functools import reduce

print(operator.add(2, 3), operator.sub(2, 3), operator.mul("ab", 2), operator.truediv(7, 2), operator.floordiv(7, 2))
print(operator.mod(7, 3), operator.pow(2, 10), operator.neg(4), operator.not_(0), operator.truth([1]))
print(operator.eq(1, 1.0), operator.lt(1, 2), operator.ge("b", "a"), operator.contains([1, 2], 2))
print(operator.and_(6, 3), operator.or_(6, 3), operator.xor(6, 3), operator.lshift(1, 4), operator.invert(0))
print(operator.getitem({"k": 9}, "k"), operator.is_(None, None), operator.index(5), operator.concat([1], [2]))
print(reduce(operator.mul, range(1, 6)))
pairs = [("b", 2), ("a", 3), ("c", 1)]
print(sorted(pairs, key=operator.itemgetter(1)), sorted(pairs, key=operator.itemgetter(0)))
get = operator.itemgetter(2, 0)
print(get("abcd"), operator.itemgetter(slice(1, 3))([1, 2, 3, 4]), get)


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y
        self.inner = self

    def scaled(self, k, offset=0):
        return Point(self.x * k + offset, self.y * k + offset)


p = Point(1, 2)
print(operator.attrgetter("x")(p), operator.attrgetter("x", "y")(p), operator.attrgetter("inner.inner.y")(p))
call = operator.methodcaller("scaled", 3, offset=1)
print(call(p).x, call(p).y, call)
print(operator.methodcaller("split", ",")("a,b,c"))
x = [1]
x = operator.iadd(x, [2])
print(x)
