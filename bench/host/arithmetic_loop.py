# A 10^6-iteration loop of integer and float arithmetic on local variables.
def run(n):
    total = 0
    x = 0.5
    for i in range(n):
        total = (total + i * 3 - (i // 7)) % 1000003
        x = x * 0.999 + 1.0
        if i & 1023 == 0:
            total += 1
    return total, round(x, 6)


print(run(1000000))
