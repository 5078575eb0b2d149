# Two modules importing names from each other inside functions: fine once both are loaded.
from ping import ping
print(ping(3))
# expect: ping 3 -> pong 2 -> ping 1 -> pong 0
