# close() raises GeneratorExit at the paused yield: finally blocks run.
def resource():
    print("open")
    try:
        yield 1
        yield 2
    finally:
        print("closed")


r = resource()
print(next(r))
r.close()
print("after close")
print(list(resource()))


def stubborn():
    try:
        yield 1
    except GeneratorExit:
        print("cleanup")
        raise


s = stubborn()
next(s)
s.close()
s.close()
print("done")
