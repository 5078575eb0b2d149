"""The model's hyperparameters: a frozen dataclass registered as a static
pytree node, so a jitted step takes it as an argument and keys its cache on
it. Named configs are JSON files beside this module."""
import dataclasses
import json
import pathlib

import jax
import jax.numpy as jnp

CONFIG_DIR = pathlib.Path(__file__).parent / "configs"
DTYPES = {"float32": jnp.float32, "bfloat16": jnp.bfloat16}


@jax.tree_util.register_static
@dataclasses.dataclass(frozen=True)
class Config:
    vocab: int
    d_model: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    d_ff: int
    max_seq: int
    experts: int = 0           # 0: a dense feed-forward; else an MoE of this many experts
    experts_per_token: int = 2
    quantized: bool = False    # int8 weights and KV cache
    dtype: str = "bfloat16"    # activations
    rope_theta: float = 10000.0
    norm_eps: float = 1e-5

    @property
    def groups(self):
        """Query heads per key/value head."""
        return self.heads // self.kv_heads

    @property
    def compute_dtype(self):
        return DTYPES[self.dtype]


def load_config(name, **overrides):
    """The named config (configs/NAME.json) with fields replaced."""
    fields = json.loads((CONFIG_DIR / f"{name}.json").read_text())
    fields.update(overrides)
    return Config(**fields)
