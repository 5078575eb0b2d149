"""Rotary position embeddings: each pair (x[i], x[i + half]) of a head's
features turned by an angle proportional to the position."""
import jax.numpy as jnp


def frequencies(head_dim, theta):
    half = head_dim // 2
    return 1.0 / jnp.power(theta, jnp.arange(half, dtype=jnp.float32) * 2.0 / head_dim)


def apply(x, positions, theta):
    """x: [batch, seq, heads, head_dim]; positions: [batch, seq]."""
    half = x.shape[-1] // 2
    angles = positions.astype(jnp.float32)[:, :, None] * frequencies(x.shape[-1], theta)[None, None, :]
    cos = jnp.cos(angles)[:, :, None, :]
    sin = jnp.sin(angles)[:, :, None, :]
    x = x.astype(jnp.float32)
    first, second = x[..., :half], x[..., half:]
    return jnp.concatenate([first * cos - second * sin, second * cos + first * sin], axis=-1)
