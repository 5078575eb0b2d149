def self_ref():
    yield next(g)


g = self_ref()
next(g)
