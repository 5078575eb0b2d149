print(__name__)
LEVEL = 1
