from .layers import Layer


class Model:
    def __init__(self, layers):
        self.layers = layers

    def __repr__(self):
        return f"Model(layers={self.layers})"


def build(n):
    return Model([Layer(i) for i in range(n)])
