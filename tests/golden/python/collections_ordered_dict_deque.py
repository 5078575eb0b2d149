# collections.OrderedDict (move_to_end, popitem) and deque.
from collections import OrderedDict, deque

o = OrderedDict()
o["b"] = 1
o["a"] = 2
o["c"] = 3
o.move_to_end("b")
print(o, list(o))
o.move_to_end("c", last=False)
print(o, o.popitem(), o.popitem(last=False), o)
print(OrderedDict(), OrderedDict([("x", 1)]) == {"x": 1})

d = deque([1, 2, 3])
d.append(4)
d.appendleft(0)
print(d, len(d), d[0], d[-1])
print(d.pop(), d.popleft(), d)
d.extend([7, 8])
d.extendleft([-1, -2])
print(d)
d.rotate(2)
print(d)
d.rotate(-3)
print(d, 7 in d, d.count(7), d.index(7))
window = deque(maxlen=3)
for i in range(6):
    window.append(i)
    print(list(window), sum(window))
print(window, window.maxlen, deque("ab") == deque(["a", "b"]))
d.remove(7)
d.reverse()
print(d, bool(deque()))
