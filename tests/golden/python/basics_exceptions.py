# Built-in exceptions: hierarchy, args, str/repr, chaining.
for exc_type in (ValueError, KeyError, IndexError, ZeroDivisionError):
    try:
        if exc_type is KeyError:
            {}["missing"]
        elif exc_type is IndexError:
            [][1]
        elif exc_type is ZeroDivisionError:
            1 / 0
        else:
            int("x")
    except LookupError as e:
        print("lookup", type(e).__name__, e)
    except Exception as e:
        print("other", type(e).__name__, e, e.args)
try:
    try:
        raise KeyError("k")
    except KeyError as inner:
        raise RuntimeError("outer") from inner
except RuntimeError as e:
    print(repr(e), repr(e.__cause__))
print(issubclass(KeyError, LookupError), isinstance(ValueError("v"), Exception))
