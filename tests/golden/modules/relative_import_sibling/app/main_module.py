from . import config
from .helpers import shout


def run():
    return "config=" + config.MODE + " helper=" + shout("help")
