# A dict subclass without __missing__ raises KeyError as dict does.
class Config(dict):
    def lookup(self, key):
        return self[key]


config = Config(a=1)
print(config.lookup("a"))
config.lookup("b")
