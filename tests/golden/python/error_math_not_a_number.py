# math functions take real numbers only.
import math

math.sqrt("4")
