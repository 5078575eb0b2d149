# math.sqrt of a negative number: ValueError: math domain error.
import math

print(math.sqrt(4))
print(math.sqrt(-1))
