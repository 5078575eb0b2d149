# Function bodies run compiled once (interp/python/compiled.cpp): each kind of
# statement and expression it compiles, with their errors, and a traceback
# through compiled frames in two files, all as CPython runs them.
from arith import middle


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def loops(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        total += i
        if total > 50:
            break
    else:
        total = -1
    k = 0
    while k < 5:
        k += 1
    else:
        k *= 10
    for x in [1, 2, 3]:
        total += x
    for c in "ab":
        total += len(c)
    return total, k


def early(items):
    for item in items:
        if item == "stop":
            return "stopped"
    return None


def compare(a):
    return 0 < a < 10, a == 3, a is None, a in [1, 2, 3], not a


def unbound(flag):
    if flag:
        x = 1
    x += 1
    return x


def deleted():
    y = 1
    del y
    return y


def no_such_global():
    return missing_name + 1


def bad_operands(a):
    return a + "text"


class Point:
    def __init__(self, x):
        self.x = x

    def scaled(self, k):
        return self.x * k if k else -self.x


class Undecided:
    def __bool__(self):
        raise ValueError("no truth value")


def reads(point, flag):
    return point.x, point.scaled(2), point.scaled(0), not flag, flag and point.x, flag or point.x


def bad_reads(which):
    point = Point(1)
    if which == 0:
        return point.y
    if which == 1:
        return -"text"
    if which == 2:
        return [1, 2][5]
    if which == 3:
        return {"a": 1}["b"]
    return Undecided() and 1


def items(rows, table):
    return rows[1], rows[-1][0], rows[1:], table["k"], (rows, 2)[1]


def deep(n):
    return deep(n + 1)


def countdown(n):
    while n > 0:
        yield n
        n -= 1


def failing(n):
    for i in range(n):
        yield 10 // (n - 1 - i)


def outer(a):
    total = middle(a) + 1
    return total


print(fib(15))
print(loops(20), loops(3))
print(early(["a", "stop", "b"]), early([]))
print(compare(3), compare(11))
print(reads(Point(3), True), reads(Point(4), False))
print(items([[7], [8, 9]], {"k": "v"}))
for function, arguments in [(unbound, (False,)), (deleted, ()), (no_such_global, ()), (bad_operands, (1,)),
                            (bad_reads, (0,)), (bad_reads, (1,)), (bad_reads, (2,)), (bad_reads, (3,)),
                            (bad_reads, (4,))]:
    try:
        function(*arguments)
    except Exception as error:
        print(type(error).__name__, error)
try:
    deep(0)
except RecursionError:
    print("RecursionError")
print(list(countdown(3)))
try:
    print(list(failing(3)))
except ZeroDivisionError as error:
    print("ZeroDivisionError", error)
print(outer(5))
print(outer(0))
# expect: 610
# expect: (69, 50) (7, 50)
# expect: stopped None
# expect: (True, True, False, True, False) (False, False, False, False, False)
# expect: (3, 6, -3, False, 3, True) (4, 8, -4, True, False, 4)
# expect: ([8, 9], 8, [[8, 9]], 'v', 2)
# expect: UnboundLocalError cannot access local variable 'x' where it is not associated with a value
# expect: UnboundLocalError cannot access local variable 'y' where it is not associated with a value
# expect: NameError name 'missing_name' is not defined
# expect: TypeError unsupported operand type(s) for +: 'int' and 'str'
# expect: AttributeError 'Point' object has no attribute 'y'
# expect: TypeError bad operand type for unary -: 'str'
# expect: IndexError list index out of range
# expect: KeyError 'b'
# expect: ValueError no truth value
# expect: RecursionError
# expect: [3, 2, 1]
# expect: ZeroDivisionError integer division or modulo by zero
# expect: 3
# expect-error-at: arith.py:2: ZeroDivisionError: integer division or modulo by zero
# expect-stderr: File "main.py", line 144, in <module>
# expect-stderr: File "main.py", line 117, in outer
# expect-stderr: File "arith.py", line 6, in middle
# expect-stderr: File "arith.py", line 2, in divide
