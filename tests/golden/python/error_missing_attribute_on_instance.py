class Box:
    def __init__(self):
        self.width = 3


b = Box()
print(b.width)
print(b.height)
