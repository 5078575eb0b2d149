from .layers import Layer
from .network import Model, build
