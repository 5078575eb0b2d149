# Three levels of packages; each __init__ runs once, outermost first.
import a.b.c
from a.b.c import deep
import a.b
print(a.b.c.deep(), deep is a.b.c.deep, a.b.LEVEL, a.LEVEL)
# expect: a
# expect: a.b
# expect: a.b.c
# expect: deep True 2 1
