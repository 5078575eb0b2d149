# functools.wraps copies the wrapped function's name and sets __wrapped__;
# functions take attributes of their own.
import functools


def logged(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        print("calling", function.__name__, args, kwargs)
        return function(*args, **kwargs)

    return wrapper


@logged
def add(a, b=0):
    return a + b


print(add(1, b=2))
print(add.__name__, add.__qualname__, add.__wrapped__.__name__)


def counted(function):
    def wrapper(*args):
        wrapper.calls += 1
        return function(*args)

    wrapper.calls = 0
    return functools.update_wrapper(wrapper, function)


@counted
def double(x):
    return 2 * x


print(double(2), double(5), double.calls, double.__name__)
