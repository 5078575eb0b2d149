__all__ = ["exported"]


def exported():
    return "exported"


def hidden():
    return "hidden"
