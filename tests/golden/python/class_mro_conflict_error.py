# No consistent MRO: TypeError at class creation.
class A: pass
class B(A): pass
print("defined")
try:
    class C(A, B): pass
except TypeError as e:
    print(type(e).__name__, str(e).replace("\n", " "))
