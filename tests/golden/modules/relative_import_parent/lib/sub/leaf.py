from .. import TOP
from ..base import NAME


def describe():
    return "leaf sees " + NAME + " and " + TOP + " from package " + __package__
