# Two built-in bases whose instances cannot be one object.
class Both(dict, list):
    pass
