class Thing:
    pass


t = Thing()
t()
