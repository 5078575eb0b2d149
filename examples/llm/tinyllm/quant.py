"""int8 quantization: a tensor as int8 values and a float32 scale per
channel (absmax over the reduced axes), a pytree node so that jit, device_put
and the tree functions see through it."""
import dataclasses
import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.tree_util.register_dataclass, data_fields=["values", "scale"], meta_fields=["axes"])
@dataclasses.dataclass
class QArray:
    values: jax.Array   # int8
    scale: jax.Array    # float32, 1 along the quantized axes
    axes: tuple         # the axes the scale was taken over

    @property
    def shape(self):
        return self.values.shape


def round_half_away(x):
    """Round to the nearest integer, halves away from zero (a float's
    conversion to int truncates toward zero)."""
    return (x + 0.5 * jnp.sign(x)).astype(jnp.int32)


def quantize(x, axes):
    """x as int8 values times a float32 scale taken over `axes`."""
    x = x.astype(jnp.float32)
    absmax = jnp.max(jnp.abs(x), axis=axes, keepdims=True)
    scale = jnp.where(absmax > 0, absmax / 127.0, 1.0)
    values = jnp.clip(round_half_away(x / scale), -127, 127).astype(jnp.int8)
    return QArray(values, scale, tuple(axes))


def dequantize(q, dtype):
    if not isinstance(q, QArray):
        return q.astype(dtype)
    return (q.values.astype(jnp.float32) * q.scale).astype(dtype)


def einsum(subscripts, x, w, out_sharding=None):
    """x (activations) times a weight that may be quantized: an int8 weight
    enters the contraction as int8 (a mixed-dtype einsum accumulating in
    float32) and its per-output-channel scale multiplies the result."""
    if not isinstance(w, QArray):
        return jnp.einsum(subscripts, x, w, out_sharding=out_sharding)
    y = jnp.einsum(subscripts, x, w.values, preferred_element_type=jnp.float32, out_sharding=out_sharding)
    return (y * output_scale(subscripts, w)).astype(x.dtype)


def output_scale(subscripts, w):
    """The weight's scale laid out along the einsum's output: the scale has
    size 1 on the contracted axes, which are dropped; the weight's other axes
    end the output, in their order (as in every einsum of this model), so
    the rest broadcasts."""
    inputs, output = subscripts.split("->")
    weight_axes = inputs.split(",")[1]
    return w.scale.reshape(tuple(size for name, size in zip(weight_axes, w.scale.shape) if name in output))
