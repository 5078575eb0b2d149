print(__name__)
LEVEL = 2
