# Popping an empty deque is an IndexError.
from collections import deque

d = deque([1])
d.popleft()
d.pop()
