# An object's __len__ raising inside len(), called from a function's body,
# is reported through both frames.
class Measured:
    def __len__(self):
        return int("not a number")


def total(items):
    return len(items) + len(
        Measured()
    )


print(total([1, 2]))
