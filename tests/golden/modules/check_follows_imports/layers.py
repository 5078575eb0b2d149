import jax
from jax.sharding import PartitionSpec as P


def project(x):
    return jax.device_put(x, P(None, ("X", "Y")))
