"""Grouped-query attention over a KV cache: each of `kv_heads` key/value
heads serves `groups` query heads. The cache holds keys and values for
`max_seq` positions, int8 with a scale per position and head when the config
is quantized; a step writes its tokens at `position` and attends causally to
everything up to them."""
import jax
import jax.numpy as jnp

from . import quant, rope
from .sharding import logical_to_spec


def write(cache_part, new, position):
    """Writes new [batch, seq, kv_heads, head_dim] into the cache at position."""
    if isinstance(cache_part, quant.QArray):
        q = quant.quantize(new, axes=(3,))
        return quant.QArray(jax.lax.dynamic_update_slice_in_dim(cache_part.values, q.values, position, 1),
                            jax.lax.dynamic_update_slice_in_dim(cache_part.scale, q.scale, position, 1),
                            cache_part.axes)
    return jax.lax.dynamic_update_slice_in_dim(cache_part, new.astype(cache_part.dtype), position, 1)


def step_tables(cfg, batch, seq, position):
    """What every layer of a step shares: the RoPE tables of its positions
    and the causal mask [seq, max_seq] over the cache."""
    positions = position + jnp.arange(seq, dtype=jnp.int32)[None, :] + jnp.zeros((batch, 1), dtype=jnp.int32)
    visible = jnp.arange(cfg.max_seq)[None, :] <= positions[0][:, None]
    return rope.tables(positions, cfg.head_dim, cfg.rope_theta), visible


def attend(cfg, layer, x, keys, values, position, tables):
    """x: [batch, seq, embed] at positions position..position+seq-1; keys and
    values: this layer's cache; tables: step_tables(...). Returns the
    attention output and the cache with the new keys and values written."""
    batch, seq = x.shape[0], x.shape[1]
    rotation, visible = tables
    heads = logical_to_spec(("batch", "seq", "heads", "head_dim"))
    q = rope.apply(quant.einsum("btd,dhk->bthk", x, layer["wq"], out_sharding=heads), rotation)
    k = rope.apply(quant.einsum("btd,dhk->bthk", x, layer["wk"], out_sharding=heads), rotation)
    v = quant.einsum("btd,dhk->bthk", x, layer["wv"], out_sharding=heads)
    keys = write(keys, k, position)
    values = write(values, v, position)
    k_all = quant.dequantize(keys, jnp.float32)
    v_all = quant.dequantize(values, jnp.float32)

    q = q.reshape(batch, seq, cfg.kv_heads, cfg.groups, cfg.head_dim)
    scores = jnp.einsum("btkgh,bskh->bkgts", q, k_all) / jnp.sqrt(jnp.float32(cfg.head_dim))
    scores = jnp.where(visible[None, None, None, :, :], scores, -1e30)
    weights = jax.nn.softmax(scores, axis=-1)
    out = jnp.einsum("bkgts,bskh->btkgh", weights, v_all).reshape(batch, seq, cfg.heads, cfg.head_dim)
    out = quant.einsum("bthk,hkd->btd", out.astype(x.dtype), layer["wo"],
                       out_sharding=logical_to_spec(("batch", "seq", "embed")))
    return out, keys, values
