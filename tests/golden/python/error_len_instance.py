class Opaque:
    pass


len(Opaque())
