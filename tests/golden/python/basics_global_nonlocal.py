# global and nonlocal rebinding.
total = 0


def add(n):
    global total
    total += n


def outer():
    value = []
    count = 0

    def inner():
        nonlocal count
        count += 1
        value.append(count)

    inner()
    inner()
    return value, count


add(5)
add(6)
print(total, outer())
