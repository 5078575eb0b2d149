# contextlib.ExitStack: managers entered in a loop exit in reverse order;
# callbacks run with their arguments; pop_all moves the callbacks out.
from contextlib import ExitStack, contextmanager


@contextmanager
def resource(name, log):
    log.append("open " + name)
    yield name
    log.append("close " + name)


log = []
with ExitStack() as stack:
    names = [stack.enter_context(resource(n, log)) for n in ["a", "b", "c"]]
    stack.callback(log.append, "callback")
    print(names)
print(log)

log = []
with ExitStack() as stack:
    stack.enter_context(resource("kept", log))
    moved = stack.pop_all()
print(log)
moved.close()
print(log)


class Suppressing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        print("suppressing", exc[0].__name__ if exc[0] else None)
        return True


with ExitStack() as stack:
    stack.enter_context(Suppressing())
    raise RuntimeError("swallowed by the inner manager")
print("done")
