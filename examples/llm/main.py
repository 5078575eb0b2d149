"""Generates tokens with tinyllm: a small decoder-only model on a mesh of
the simulated devices (data x model), greedy decoding after a prefill.

    shardlang run examples/llm/main.py [--config small|8b] [--moe] [--int8] [--steps 8]
    TINYLLM_CONFIG=8b shardlang check --devices 16 examples/llm/main.py   # the 8B shapes on a v5e 4x4

(`check` passes the script no arguments: the environment names the config.)
"""
# test-run: --devices 8 -- --steps 6
import os
import sys

import jax
import jax.numpy as jnp

from tinyllm import Weights, generate, load_config


def arguments(argv):
    options = {"config": os.getenv("TINYLLM_CONFIG", "small"), "moe": False, "int8": False, "steps": 8}
    i = 1
    while i < len(argv):
        name = argv[i].lstrip("-")
        if name in ("moe", "int8"):
            options[name] = True
        else:
            options[name] = argv[i + 1] if name == "config" else int(argv[i + 1])
            i += 1
        i += 1
    return options


def host_rows(x):
    """A 2-D integer array's rows as lists of ints."""
    x = jax.reshard(x, jax.P(None, None))
    return [[int(t) for t in x[i]] for i in range(x.shape[0])]


def main():
    options = arguments(sys.argv)
    overrides = {"quantized": options["int8"]}
    if options["moe"]:
        overrides["experts"] = 4
    cfg = load_config(options["config"], **overrides)
    model = min(4, jax.device_count())          # 8 devices: 2x4, a v5e 4x4: 4x4
    mesh = jax.make_mesh((jax.device_count() // model, model), ("data", "model"))
    data = mesh.shape["data"]
    jax.set_mesh(mesh)
    weights = Weights.create(jax.random.key(0), cfg, mesh)
    batch = 2 * data
    prompt = (jnp.arange(batch * 4, dtype=jnp.int32).reshape(batch, 4) * 7) % cfg.vocab
    tokens, _, cache = generate(cfg, weights, prompt, options["steps"], mesh)
    print("config:", options["config"], "moe" if cfg.experts else "dense", "int8" if cfg.quantized else cfg.dtype)
    print("cache:", jax.typeof(cache.keys[0].values if cfg.quantized else cache.keys[0]))
    for row_prompt, row_tokens in zip(host_rows(prompt), host_rows(tokens)):
        print("prompt", row_prompt, "->", row_tokens)


if __name__ == "__main__":
    main()
