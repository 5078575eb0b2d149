class Weird:
    def __repr__(self):
        return 42


print("before")
print(repr(Weird()))
