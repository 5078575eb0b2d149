#!/usr/bin/python3
"""Times one jitted decode step of examples/llm's small config (float32)
against the same step written in NumPy, side by side (issue 23's benchmark;
not a test).

shardlang runs tinyllm unmodified on 8 cpu devices (a 2x4 data x model mesh,
as examples/llm/main.py lays them out) and, for comparison, on 1: it
prefills a prompt, runs the jitted step once (compiling it), saves the
weights, the cache and the step's inputs and logits with np.save, and times
the step with %timeit. The NumPy side, in a child process of Debian's
python3, loads those arrays, runs the same step (embedding, per layer RMSNorm,
q/k/v projections, RoPE, the cache write, grouped-query attention over the
cache, the output projection, a SwiGLU feed-forward; the final norm, the LM
head and the greedy token), checks that its logits agree with shardlang's,
and times it with timeit. Prints both best-of times per step and the ratio
shardlang / NumPy (target: at most 1.0).

Usage: /usr/bin/python3 bench/llm_decode.py [path/to/shardlang] [repeats]
(Debian's python3-numpy: the python3 first on PATH may have no numpy.)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernels_vs_numpy import UNITS, find_shardlang, numpy_environment  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOOPS = 20
BATCH = 4

SHARDLANG_STEP = """\
import jax
import jax.numpy as jnp
import numpy as np
from tinyllm import KVCache, Weights, load_config
from tinyllm.decode import make_decode_step, prefill

cfg = load_config("small", dtype="float32")
model = min(4, jax.device_count())
mesh = jax.make_mesh((jax.device_count() // model, model), ("data", "model"))
jax.set_mesh(mesh)
weights = jax.device_put(Weights.init(jax.random.key(0), cfg), Weights.shardings(cfg, mesh))
prompt = (jnp.arange({batch} * 6, dtype=jnp.int32).reshape({batch}, 6) * 5 + 1) % cfg.vocab
run_step = make_decode_step()
cache = KVCache.init(cfg, {batch}, mesh)
logits, token, cache = prefill(cfg, weights, cache, prompt, run_step)
position = jnp.int32(prompt.shape[1])
np.save("embed.npy", weights.embed)
np.save("final_norm.npy", weights.final_norm)
np.save("lm_head.npy", weights.lm_head)
for i, layer in enumerate(weights.layers):
    for name, w in layer.items():
        np.save(f"layer{{i}}_{{name}}.npy", w)
    np.save(f"keys{{i}}.npy", cache.keys[i])
    np.save(f"values{{i}}.npy", cache.values[i])
np.save("token.npy", token)
logits, next_token, cache = run_step(cfg, weights, cache, token[:, None], position)
np.save("logits.npy", logits)
print("config", json.dumps({{"layers": cfg.layers, "heads": cfg.heads, "kv_heads": cfg.kv_heads,
                             "head_dim": cfg.head_dim, "max_seq": cfg.max_seq, "theta": cfg.rope_theta,
                             "eps": cfg.norm_eps, "position": int(position)}}))
%timeit -n {loops} -r {repeats} logits, next_token, cache = run_step(cfg, weights, cache, token[:, None], position)
"""

NUMPY_STEP = """\
import json, sys, timeit
import numpy as np

cfg = json.loads(sys.argv[1])
L, H, KV, HD, S = cfg["layers"], cfg["heads"], cfg["kv_heads"], cfg["head_dim"], cfg["max_seq"]
G = H // KV
load = lambda name: np.load(name + ".npy")
embed, final_norm, lm_head = load("embed"), load("final_norm"), load("lm_head")
names = ["attn_norm", "wq", "wk", "wv", "wo", "ffn_norm", "w_gate", "w_up", "w_down"]
layers = [{{n: load(f"layer{{i}}_{{n}}") for n in names}} for i in range(L)]
D = embed.shape[1]
for layer in layers:  # the projections as 2-D matrices
    layer["wq"] = layer["wq"].reshape(D, H * HD)
    layer["wk"] = layer["wk"].reshape(D, KV * HD)
    layer["wv"] = layer["wv"].reshape(D, KV * HD)
    layer["wo"] = layer["wo"].reshape(H * HD, D)
keys = [load(f"keys{{i}}") for i in range(L)]
values = [load(f"values{{i}}") for i in range(L)]
token = load("token")
position = cfg["position"]
half = HD // 2
scale = np.float32(1.0 / np.sqrt(np.float32(HD)))

def rms_norm(x, weight):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + np.float32(cfg["eps"])) * weight

def rope(x, cos, sin):  # [B, heads, HD]
    first, second = x[..., :half], x[..., half:]
    return np.concatenate([first * cos - second * sin, second * cos + first * sin], axis=-1)

def step(token, keys, values):
    B = token.shape[0]
    frequencies = 1.0 / np.power(np.float32(cfg["theta"]), np.arange(half, dtype=np.float32) * np.float32(2.0 / HD))
    angles = np.float32(position) * frequencies          # the RoPE tables and the mask, once per step
    cos, sin = np.cos(angles), np.sin(angles)
    visible = np.arange(S) <= position
    x = embed[token]                                     # [B, D]
    for i, layer in enumerate(layers):
        h = rms_norm(x, layer["attn_norm"])
        q = rope((h @ layer["wq"]).reshape(B, H, HD), cos, sin)
        k = rope((h @ layer["wk"]).reshape(B, KV, HD), cos, sin)
        keys[i][:, position] = k
        values[i][:, position] = (h @ layer["wv"]).reshape(B, KV, HD)
        scores = np.einsum("bkgh,bskh->bkgs", q.reshape(B, KV, G, HD), keys[i]) * scale
        scores = np.where(visible, scores, np.float32(-1e30))
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        out = np.einsum("bkgs,bskh->bkgh", weights, values[i]).reshape(B, H * HD)
        x = x + out @ layer["wo"]
        h = rms_norm(x, layer["ffn_norm"])
        gate = h @ layer["w_gate"]
        x = x + (gate / (1 + np.exp(-gate)) * (h @ layer["w_up"])) @ layer["w_down"]
    logits = rms_norm(x, final_norm) @ lm_head
    return logits, np.argmax(logits, axis=-1)

logits, _ = step(token, keys, values)
expected = load("logits")
error = float(np.max(np.abs(logits - expected)) / np.max(np.abs(expected)))
best = min(timeit.repeat(lambda: step(token, keys, values), number={loops}, repeat={repeats})) / {loops}
print(json.dumps({{"seconds": best, "error": error, "numpy": np.__version__}}))
"""


def shardlang_step(binary, devices, repeats, folder):
    program = os.path.join(folder, "step.py")
    with open(program, "w") as f:
        f.write("import json\n" + SHARDLANG_STEP.format(batch=BATCH, loops=LOOPS, repeats=repeats))
    run = subprocess.run([binary, "run", "--platform", "cpu", "--devices", str(devices),
                          "-I", os.path.join(ROOT, "examples", "llm"), program],
                         capture_output=True, text=True, cwd=folder, timeout=1800)
    if run.returncode != 0:
        sys.exit(f"shardlang failed ({run.returncode}):\n{run.stdout}\n{run.stderr}")
    config = re.search(r"^config (.*)$", run.stdout, re.MULTILINE).group(1)
    value, unit = re.search(r"best of \d+: ([0-9.]+) (ns|us|\u00b5s|ms|s) per loop", run.stdout).groups()
    return float(value) * UNITS[unit], config


def numpy_step(config, repeats, folder):
    run = subprocess.run([sys.executable, "-c", NUMPY_STEP.format(loops=LOOPS, repeats=repeats), config],
                         capture_output=True, text=True, cwd=folder, env=numpy_environment(), timeout=1800)
    if run.returncode != 0:
        sys.exit(f"NumPy side failed:\n{run.stderr}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main():
    binary = os.path.abspath(find_shardlang())
    repeats = int(sys.argv[-1]) if len(sys.argv) > 1 and sys.argv[-1].isdigit() else 5
    print(f"one decode step of examples/llm's small config, float32, batch {BATCH}; best of {repeats}, "
          f"{LOOPS} steps each")
    print(f"{'devices':<10}{'shardlang':>12}{'NumPy':>12}{'ratio':>8}  {'logits agree':<14}")
    worst = 0.0
    for devices in (8, 1):
        with tempfile.TemporaryDirectory() as folder:
            ours, config = shardlang_step(binary, devices, repeats, folder)
            theirs = numpy_step(config, repeats, folder)
        ratio = ours / theirs["seconds"]
        worst = max(worst, ratio)
        agree = f"{theirs['error']:.1e}" + (" ok" if theirs["error"] <= 1e-5 else " DIFFER")
        print(f"{devices:<10}{ours * 1e6:>10.1f}us{theirs['seconds'] * 1e6:>10.1f}us{ratio:>8.2f}  {agree}")
    print(f"ratio shardlang / NumPy (target <= 1.0): {worst:.2f} at worst (NumPy {theirs['numpy']})")


if __name__ == "__main__":
    main()
