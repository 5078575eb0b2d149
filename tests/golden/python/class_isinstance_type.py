# isinstance with tuples and built-in types, type() of classes and instances.
class A:
    pass


class B(A):
    pass


objects = [A(), B(), 3, "s", [1], None]
for o in objects:
    print(type(o).__name__, isinstance(o, A), isinstance(o, (B, int)), isinstance(o, object))
print(type(A).__name__, type(B()) is B, isinstance(A, type), issubclass(B, object), issubclass(bool, int))
print(A.__name__, B.__bases__[0].__name__, A.__module__)
