# A generator function: lazy, resumable, exhausted after its return.
def count_up(limit):
    print("start")
    n = 0
    while n < limit:
        yield n
        n += 1
    print("end")


g = count_up(3)
print(type(g).__name__)
print(next(g), next(g))
print(list(g))
print(list(g), next(g, "exhausted"))
print(sum(count_up(5)), [x * 2 for x in count_up(2)])
