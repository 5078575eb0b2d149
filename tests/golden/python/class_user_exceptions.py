# User exceptions deriving from built-in ones, with extra state.
class AppError(Exception):
    pass


class ConfigError(AppError, KeyError):
    def __init__(self, key, detail):
        super().__init__(f"bad config key {key!r}")
        self.key = key
        self.detail = detail


class Retry(RuntimeError):
    def __str__(self):
        return "retry please"


for make in (lambda: ConfigError("lr", "negative"), lambda: Retry("x"), lambda: AppError("plain", 2)):
    try:
        raise make()
    except KeyError as e:
        print("KeyError handler", type(e).__name__, e.key, e.detail, e.args)
    except AppError as e:
        print("AppError handler", e, e.args, repr(e))
    except Exception as e:
        print("Exception handler", type(e).__name__, str(e), e.args)
print(issubclass(ConfigError, LookupError), isinstance(Retry(), Exception), ConfigError.__mro__[1].__name__)
