"""tinyllm: a small decoder-only language model written as a JAX model
repository is: a config, logical-axis sharding rules, int8 weights and KV
cache, RoPE, grouped-query attention, a dense and a mixture-of-experts
feed-forward, and a prefill and decode loop."""
from .config import Config, load_config
from .decode import generate, make_decode_step, prefill
from .model import KVCache, Weights
