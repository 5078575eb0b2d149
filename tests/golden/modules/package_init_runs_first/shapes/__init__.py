print("init", __name__)
VERSION = 2
loaded = []
