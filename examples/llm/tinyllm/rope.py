"""Rotary position embeddings: each pair (x[i], x[i + half]) of a head's
features turned by an angle proportional to the position. The tables are
made once per step and shared by every layer's queries and keys."""
import jax.numpy as jnp


def frequencies(head_dim, theta):
    half = head_dim // 2
    return 1.0 / jnp.power(theta, jnp.arange(half, dtype=jnp.float32) * 2.0 / head_dim)


def tables(positions, head_dim, theta):
    """cos and sin of the angles, [batch, seq, 1, head_dim // 2], for positions [batch, seq]."""
    angles = positions.astype(jnp.float32)[:, :, None] * frequencies(head_dim, theta)[None, None, :]
    return jnp.cos(angles)[:, :, None, :], jnp.sin(angles)[:, :, None, :]


def apply(x, rotation):
    """x: [batch, seq, heads, head_dim]; rotation: tables(...)."""
    cos, sin = rotation
    half = x.shape[-1] // 2
    x = x.astype(jnp.float32)
    first, second = x[..., :half], x[..., half:]
    return jnp.concatenate([first * cos - second * sin, second * cos + first * sin], axis=-1)
