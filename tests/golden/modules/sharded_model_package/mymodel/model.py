import jax
import jax.numpy as jnp
from . import rules


def init(config):
    x = jax.device_put(jnp.ones((config.batch, config.features)), rules.ACTIVATIONS)
    w = jax.device_put(jnp.ones((config.features, config.hidden)), rules.WEIGHTS)
    return x, w


@jax.jit
def step(x, w):
    return jnp.dot(x, w)
