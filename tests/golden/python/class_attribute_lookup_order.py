# Instance attributes shadow class attributes; deleting reveals them again;
# mutable class attributes are shared.
class Config:
    lr = 0.1
    tags = []

    def set_lr(self, value):
        self.lr = value


a, b = Config(), Config()
a.set_lr(0.5)
a.tags.append("shared")
print(a.lr, b.lr, Config.lr, b.tags)
del a.lr
print(a.lr)
Config.lr = 0.01
print(a.lr, b.lr)
print("lr" in vars(a), vars(b))
try:
    del b.lr
except AttributeError as e:
    print("AttributeError", e)
