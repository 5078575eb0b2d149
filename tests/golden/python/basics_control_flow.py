# Loops with else, break/continue, try/except/else/finally ordering.
for i in range(5):
    if i == 1:
        continue
    if i == 3:
        break
    print("loop", i)
else:
    print("not reached")
n = 0
while n < 3:
    n += 1
else:
    print("while done", n)

def trial(x):
    try:
        if x == 0:
            raise ValueError("zero")
        result = 10 // x
    except ValueError as e:
        print("caught", e)
        return "handled"
    else:
        print("else", result)
        return result
    finally:
        print("finally", x)

print(trial(0))
print(trial(5))
a, *b, c = [1, 2, 3, 4, 5]
print(a, b, c)
(x, y), z = (1, 2), 3
print(x, y, z)
