# math.floor of an infinity cannot be an integer.
import math

math.floor(math.inf)
