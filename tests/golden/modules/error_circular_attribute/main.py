# Reading an attribute of a partly initialised module that is not there yet.
import left
# expect-error-at: right.py:2: AttributeError: partially initialized module 'left' has no attribute 'LATER' (most likely due to a circular import)
