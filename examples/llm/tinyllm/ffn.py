"""The feed-forward blocks: a dense SwiGLU, and a mixture of experts whose
router picks `experts_per_token` experts per token (top-k by repeated
argmax) and mixes their SwiGLU outputs by the renormalised router weights."""
import jax
import jax.numpy as jnp

from . import quant
from .sharding import logical_to_spec


def dense(cfg, layer, x):
    ffw = logical_to_spec(("batch", "seq", "ffw"))
    gate = quant.einsum("btd,df->btf", x, layer["w_gate"], out_sharding=ffw)
    up = quant.einsum("btd,df->btf", x, layer["w_up"], out_sharding=ffw)
    hidden = (jax.nn.silu(gate.astype(jnp.float32)) * up.astype(jnp.float32)).astype(x.dtype)
    return quant.einsum("btf,fd->btd", hidden, layer["w_down"], out_sharding=logical_to_spec(("batch", "seq", "embed")))


def top_k_mask(logits, k):
    """[..., experts] -> 1.0 where the expert is among the k largest."""
    chosen = jnp.zeros(logits.shape, dtype=jnp.float32)
    remaining = logits
    for _ in range(k):
        pick = jax.nn.one_hot(jnp.argmax(remaining, axis=-1), logits.shape[-1], dtype=jnp.float32)
        chosen = chosen + pick
        remaining = jnp.where(pick > 0, -jnp.inf, remaining)
    return chosen


def route(cfg, layer, x):
    """Each token's weight for each expert: softmax over its chosen experts, 0 elsewhere."""
    logits = jnp.einsum("btd,de->bte", x.astype(jnp.float32), layer["router"])
    mask = top_k_mask(logits, cfg.experts_per_token)
    weights = jnp.exp(logits - jnp.max(logits, axis=-1, keepdims=True)) * mask
    return weights / jnp.sum(weights, axis=-1, keepdims=True)


def moe(cfg, layer, x):
    """Every expert runs on every token (experts' ffw dimension sharded over
    'model'); a token keeps its chosen experts' outputs, weighted."""
    weights = route(cfg, layer, x)
    experts_ffw = logical_to_spec(("batch", "seq", "experts", "ffw"))
    gate = quant.einsum("btd,edf->btef", x, layer["w_gate"], out_sharding=experts_ffw)
    up = quant.einsum("btd,edf->btef", x, layer["w_up"], out_sharding=experts_ffw)
    hidden = (jax.nn.silu(gate.astype(jnp.float32)) * up.astype(jnp.float32)).astype(x.dtype)
    out = quant.einsum("btef,efd->bted", hidden, layer["w_down"],
                       out_sharding=logical_to_spec(("batch", "seq", "experts", "embed")))
    return jnp.einsum("bted,bte->btd", out.astype(jnp.float32), weights).astype(x.dtype)


def feed_forward(cfg, layer, x):
    return moe(cfg, layer, x) if cfg.experts else dense(cfg, layer, x)
