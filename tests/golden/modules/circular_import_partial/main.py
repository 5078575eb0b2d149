# Circular imports as in CPython: the second module sees the first partly
# initialised, and what the first defined before the import is there.
import first
print(first.ready, first.second.seen_early, first.second.use_later())
# expect: first: start
# expect: second: first.early = early
# expect: first: end
# expect: True early late
