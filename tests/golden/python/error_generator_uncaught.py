def broken():
    yield 1
    raise ValueError("inside the generator")


for item in broken():
    print(item)
