"""tinyllm's tests (a ctest case: `shardlang run examples/llm/test_llm.py`,
its output checked against the expectation comments below). With dtype=float32,
greedy decoding gives the same tokens, and logits within 1e-5 of the largest
logit's magnitude, whether each step runs eagerly or jitted and on one
device or on a 2x4 mesh; for the dense and the MoE model, with float32 and
with int8 weights and KV cache (whose type is printed)."""
import jax
import jax.numpy as jnp
import numpy as np

from tinyllm import Weights, generate, load_config

STEPS = 5
TOLERANCE = 1e-5


def mesh_of(devices, data):
    return jax.make_mesh((data, devices // data), ("data", "model"), devices=jax.devices()[:devices])


def decode(cfg, mesh, jitted):
    jax.set_mesh(mesh)
    weights = Weights.create(jax.random.key(1), cfg, mesh)
    prompt = (jnp.arange(12, dtype=jnp.int32).reshape(2, 6) * 11 + 3) % cfg.vocab
    tokens, logits, cache = generate(cfg, weights, prompt, STEPS, mesh, jitted=jitted)
    cache_type = jax.typeof(cache.keys[0].values if cfg.quantized else cache.keys[0])
    return np.asarray(tokens), [np.asarray(step) for step in logits], cache_type


def agree(a, b):
    """Same tokens, and every step's logits within TOLERANCE of the largest magnitude."""
    tokens_a, logits_a, _ = a
    tokens_b, logits_b, _ = b
    same = bool(np.min(np.asarray(tokens_a == tokens_b, dtype=np.int32)))
    worst = 0.0
    for x, y in zip(logits_a, logits_b):
        worst = max(worst, float(np.max(np.abs(x - y))) / float(np.max(np.abs(x))))
    return same and worst <= TOLERANCE, worst


for variant, overrides in [("dense", {}), ("moe", {"experts": 4}), ("dense int8", {"quantized": True}),
                           ("moe int8", {"experts": 4, "quantized": True})]:
    cfg = load_config("small", dtype="float32", **overrides)
    jitted_8 = decode(cfg, mesh_of(8, 2), jitted=True)
    eager_8 = decode(cfg, mesh_of(8, 2), jitted=False)
    jitted_1 = decode(cfg, mesh_of(1, 1), jitted=True)
    ok_eager, _ = agree(jitted_8, eager_8)
    ok_devices, _ = agree(jitted_8, jitted_1)
    print(f"{variant}: eager = jit: {ok_eager}, 1 device = 8 devices: {ok_devices}, cache {jitted_8[2]}")
# expect: dense: eager = jit: True, 1 device = 8 devices: True, cache float32[2@data,16,4@model,16]
# expect: moe: eager = jit: True, 1 device = 8 devices: True, cache float32[2@data,16,4@model,16]
# expect: dense int8: eager = jit: True, 1 device = 8 devices: True, cache int8[2@data,16,4@model,16]
# expect: moe int8: eager = jit: True, 1 device = 8 devices: True, cache int8[2@data,16,4@model,16]
