# Subclassing collections' defaultdict, OrderedDict, Counter and deque:
# instances are real values of the type (its methods, its missing-key and
# maxlen behaviour) with the class's methods and dunders; __init__ reaches
# the type's own through super(); each repr names the subclass, as CPython's.
from collections import defaultdict, OrderedDict, Counter, deque
class Tally(defaultdict):
    def __init__(self):
        super().__init__(int)
    def top(self):
        return max(self, key=self.get)
t = Tally()
for w in "a b a c a b".split(): t[w] += 1
print(t, t.top(), t.default_factory, type(t).__name__, isinstance(t, defaultdict), isinstance(t, dict), t["zz"], len(t))
class Registry(OrderedDict):
    def register(self, name):
        def deco(f):
            self[name] = f
            return f
        return deco
r = Registry()
@r.register("one")
def one(): return 1
r["two"] = 2
r.move_to_end("one")
print(list(r), type(r).__name__, repr(Registry()), Registry(a=1), r.popitem()[0])
class Words(Counter):
    def __init__(self, text):
        super().__init__(text.split())
w = Words("x y x z x")
print(w, w.most_common(1), w["nope"], type(w).__name__, type(w + Counter("x")).__name__, Words("").total())
class History(deque):
    def __init__(self, size):
        super().__init__(maxlen=size)
    def last(self):
        return self[-1]
h = History(2)
for i in range(5): h.append(i)
print(h, h.last(), h.maxlen, len(h), list(h), type(h).__name__, isinstance(h, deque))
class DD(defaultdict):
    pass
d = DD(list, a=[1])
d["b"].append(2)
print(d, DD(None), DD(list, {"k": [0]}).default_factory)
class MyDeque(deque):
    pass
print(MyDeque([1, 2]), MyDeque(), MyDeque("ab", 3))
class OD(OrderedDict):
    def __setitem__(self, k, v):
        super().__setitem__(k, v * 2)
o = OD()
o["a"] = 1
print(o, OD([("x", 1)]))
