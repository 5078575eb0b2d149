# A module whose code fails is removed from sys.modules: importing it again runs it again.
import sys
for attempt in range(2):
    try:
        import flaky
    except RuntimeError as e:
        print("attempt", attempt, e, "flaky" in sys.modules)
# expect: running flaky
# expect: attempt 0 flaky failed False
# expect: running flaky
# expect: attempt 1 flaky failed False
