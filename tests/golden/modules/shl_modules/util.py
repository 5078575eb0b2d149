def both():
    return "util.py"
