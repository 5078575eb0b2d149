# functools.cached_property computes once per instance and stores the value
# in the instance's __dict__.
import functools


class Dataset:
    def __init__(self, values):
        self.values = values

    @functools.cached_property
    def total(self):
        print("summing")
        return sum(self.values)


d = Dataset([1, 2, 3])
print(d.total, d.total, "total" in vars(d))
e = Dataset([10])
print(e.total)
d.total = 0
print(d.total)
