import collections
import functools
Point = collections.namedtuple('Point', 'x y')
Other = collections.namedtuple('Other', 'a', module='elsewhere')
def names():
    local_value = 1
    return dir()
@functools.lru_cache
def sq(x):
    return x * x
