# A module's code runs once; later imports take it from sys.modules.
import sys
import counter
import counter
from counter import loads
import counter as again
print(loads, again is counter, sys.modules["counter"] is counter)
counter.loads += 1
import counter
print(counter.loads)
# expect: running counter
# expect: 1 True True
# expect: 2
