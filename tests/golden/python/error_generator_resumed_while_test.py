# An error raised by a generator's while test on a later resume, after the
# loop's body yielded: reported at the while.
def halving(n):
    while 100 // n:
        yield n
        n -= 1


for item in halving(2):
    print(item)
