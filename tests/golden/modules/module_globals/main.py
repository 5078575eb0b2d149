# A module's functions see its own globals, not the script's.
import state
counter = 100
state.bump()
state.bump()
print(state.counter, counter)
print(state.read_name())
state.counter = 10
state.bump()
print(state.counter)
# expect: 2 100
# expect: state
# expect: 11
