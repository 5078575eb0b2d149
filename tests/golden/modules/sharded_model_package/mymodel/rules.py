from jax.sharding import PartitionSpec as P

ACTIVATIONS = P("data", None)
WEIGHTS = P(None, "model")
