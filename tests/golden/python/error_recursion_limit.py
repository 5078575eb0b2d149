def forever(n):
    return forever(n + 1)


print("go")
forever(0)
