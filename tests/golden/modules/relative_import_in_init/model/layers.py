class Layer:
    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return f"Layer({self.index})"
