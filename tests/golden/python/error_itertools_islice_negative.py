# islice refuses a negative stop.
import itertools

itertools.islice([1, 2, 3], -1)
