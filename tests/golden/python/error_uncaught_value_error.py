# An uncaught exception: the last traceback line and its line match CPython.
def parse(text):
    return int(text)

print("before")
parse("twelve")
