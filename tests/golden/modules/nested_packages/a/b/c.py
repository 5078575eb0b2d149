print(__name__)


def deep():
    return "deep"
