"""The weights and the KV cache as pytrees (register_dataclass) with
`abstract`, `init` and `shardings` class methods, and the forward pass:
embed, `layers` blocks of RMSNorm, attention and feed-forward with
residuals, a final norm and the LM head."""
import dataclasses
import functools

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding

from . import attention, ffn, quant
from .sharding import logical_to_spec


def layer_table(cfg):
    """Each layer weight: (shape, logical axes, the axes a quantized copy
    takes its scale over, i.e. the contracted ones; None: never quantized)."""
    d, h, k, hd, f = cfg.d_model, cfg.heads, cfg.kv_heads, cfg.head_dim, cfg.d_ff
    table = {
        "attn_norm": ((d,), ("embed",), None),
        "wq": ((d, h, hd), ("embed", "heads", "head_dim"), (0,)),
        "wk": ((d, k, hd), ("embed", "kv_heads", "head_dim"), (0,)),
        "wv": ((d, k, hd), ("embed", "kv_heads", "head_dim"), (0,)),
        "wo": ((h, hd, d), ("heads", "head_dim", "embed"), (0, 1)),
        "ffn_norm": ((d,), ("embed",), None),
    }
    if cfg.experts:
        e = cfg.experts
        table["router"] = ((d, e), ("embed", "experts"), None)
        table["w_gate"] = ((e, d, f), ("experts", "embed", "ffw"), (1,))
        table["w_up"] = ((e, d, f), ("experts", "embed", "ffw"), (1,))
        table["w_down"] = ((e, f, d), ("experts", "ffw", "embed"), (1,))
    else:
        table["w_gate"] = ((d, f), ("embed", "ffw"), (0,))
        table["w_up"] = ((d, f), ("embed", "ffw"), (0,))
        table["w_down"] = ((f, d), ("ffw", "embed"), (0,))
    return table


def top_table(cfg):
    return {
        "embed": ((cfg.vocab, cfg.d_model), (None, "embed"), (1,)),  # kept in float32 (init)
        "final_norm": ((cfg.d_model,), ("embed",), None),
        "lm_head": ((cfg.d_model, cfg.vocab), ("embed", "vocab"), (0,)),
    }


def random_weight(key, shape, axes, quantize_axes, cfg):
    """A weight drawn on its shards (out_sharding under the context mesh):
    no device ever holds it whole, as the 8B config on a v5e 4x4 needs."""
    spec = logical_to_spec(axes)
    if quantize_axes is None:  # a norm's scale
        return jnp.ones(shape, dtype=jnp.float32, out_sharding=spec)
    fan_in = 1
    for axis in quantize_axes:
        fan_in *= shape[axis]
    w = jax.random.normal(key, shape, dtype=jnp.float32, out_sharding=spec) / (fan_in ** 0.5)
    if cfg.quantized:
        return quant.quantize(w, quantize_axes)
    return w.astype(cfg.compute_dtype)


def sharding_of(mesh, axes, quantize_axes, cfg):
    spec = NamedSharding(mesh, logical_to_spec(axes))
    if not (cfg.quantized and quantize_axes):
        return spec
    scale_axes = tuple(None if i in quantize_axes else axis for i, axis in enumerate(axes))
    return quant.QArray(spec, NamedSharding(mesh, logical_to_spec(scale_axes)), tuple(quantize_axes))


@functools.partial(jax.tree_util.register_dataclass, data_fields=["embed", "layers", "final_norm", "lm_head"],
                   meta_fields=[])
@dataclasses.dataclass
class Weights:
    embed: jax.Array
    layers: list          # of dicts, one per layer (layer_table's names)
    final_norm: jax.Array
    lm_head: object       # an array, or a quant.QArray

    @classmethod
    def init(cls, key, cfg):
        keys = jax.random.split(key, cfg.layers + 1)
        layers = []
        for i in range(cfg.layers):
            table = layer_table(cfg)
            layer_keys = jax.random.split(keys[i], len(table))
            layers.append({name: random_weight(layer_keys[j], shape, axes, q, cfg)
                           for j, (name, (shape, axes, q)) in enumerate(table.items())})
        top_keys = jax.random.split(keys[cfg.layers], 3)
        top = {name: random_weight(top_keys[j], shape, axes, q, cfg)
               for j, (name, (shape, axes, q)) in enumerate(top_table(cfg).items())}
        top["embed"] = top["embed"] if not cfg.quantized else quant.dequantize(top["embed"], jnp.float32)
        return cls(top["embed"], layers, top["final_norm"], top["lm_head"])

    @classmethod
    def abstract(cls, cfg):
        """The weights' shapes and dtypes without computing them."""
        return jax.eval_shape(lambda: cls.init(jax.random.key(0), cfg))

    @classmethod
    def create(cls, key, cfg, mesh):
        """The weights made in place, each on its shards (a jitted init
        drawing each weight with its out_sharding, whose out_shardings are
        `shardings`: no device holds them whole). Under jax.set_mesh(mesh)."""
        return jax.jit(cls.init, static_argnums=1, out_shardings=cls.shardings(cfg, mesh))(key, cfg)

    @classmethod
    def shardings(cls, cfg, mesh):
        layers = [{name: sharding_of(mesh, axes, q, cfg) for name, (_, axes, q) in layer_table(cfg).items()}
                  for _ in range(cfg.layers)]
        top = {name: sharding_of(mesh, axes, q, cfg) for name, (_, axes, q) in top_table(cfg).items()}
        top["embed"] = NamedSharding(mesh, logical_to_spec((None, "embed")))
        return cls(top["embed"], layers, top["final_norm"], top["lm_head"])


CACHE_AXES = ("batch", "seq", "kv_heads", "head_dim")


@functools.partial(jax.tree_util.register_dataclass, data_fields=["keys", "values"], meta_fields=[])
@dataclasses.dataclass
class KVCache:
    keys: list    # per layer: [batch, max_seq, kv_heads, head_dim], int8 QArrays when quantized
    values: list

    @classmethod
    def init(cls, cfg, batch, mesh):
        shape = (batch, cfg.max_seq, cfg.kv_heads, cfg.head_dim)
        spec = logical_to_spec(CACHE_AXES)

        def empty():
            if not cfg.quantized:
                return jnp.zeros(shape, dtype=cfg.compute_dtype, out_sharding=NamedSharding(mesh, spec))
            scale_spec = logical_to_spec(CACHE_AXES[:3] + (None,))
            return quant.QArray(jnp.zeros(shape, dtype=jnp.int8, out_sharding=NamedSharding(mesh, spec)),
                                jnp.ones(shape[:3] + (1,), dtype=jnp.float32,
                                         out_sharding=NamedSharding(mesh, scale_spec)), (3,))

        return cls([empty() for _ in range(cfg.layers)], [empty() for _ in range(cfg.layers)])


def rms_norm(x, scale, eps):
    x32 = x.astype(jnp.float32)
    normed = x32 * jax.lax.rsqrt(jnp.mean(x32 * x32, axis=-1, keepdims=True) + eps)
    return (normed * scale).astype(x.dtype)


def forward(cfg, weights, cache, tokens, position):
    """Logits (float32) [batch, seq, vocab] for tokens [batch, seq] at
    positions position.., and the cache with their keys and values."""
    x = jnp.take(weights.embed, tokens, axis=0,
                 out_sharding=logical_to_spec(("batch", "seq", "embed"))).astype(cfg.compute_dtype)
    tables = attention.step_tables(cfg, tokens.shape[0], tokens.shape[1], position)
    keys, values = [], []
    for i, layer in enumerate(weights.layers):
        out, k, v = attention.attend(cfg, layer, rms_norm(x, layer["attn_norm"], cfg.norm_eps),
                                     cache.keys[i], cache.values[i], position, tables)
        x = x + out
        x = x + ffn.feed_forward(cfg, layer, rms_norm(x, layer["ffn_norm"], cfg.norm_eps))
        keys.append(k)
        values.append(v)
    x = rms_norm(x, weights.final_norm, cfg.norm_eps)
    logits = quant.einsum("btd,dv->btv", x, weights.lm_head, out_sharding=logical_to_spec(("batch", "seq", "vocab")))
    return logits.astype(jnp.float32), KVCache(keys, values)
