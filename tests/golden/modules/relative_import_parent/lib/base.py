NAME = __name__
