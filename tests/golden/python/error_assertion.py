def check(x):
    assert x > 0, f"x must be positive, got {x}"
    return x


print(check(1))
check(-2)
