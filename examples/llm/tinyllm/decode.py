"""Prefill and the decode loop. One jitted function runs a step over any
number of tokens; its cache argument is donated (the step writes the new
keys and values into it), and the config, a static pytree, keys its cache."""
import functools

import jax
import jax.numpy as jnp

from .model import KVCache, forward


def step(cfg, weights, cache, tokens, position):
    """Logits of the last position, the greedy next token, and the cache."""
    logits, cache = forward(cfg, weights, cache, tokens, position)
    last = logits[:, -1, :]
    return last, jnp.argmax(last, axis=-1).astype(jnp.int32), cache


def make_decode_step(jitted=True):
    if not jitted:
        return step
    return jax.jit(step, donate_argnums=(2,))


def prefill(cfg, weights, cache, prompt, run_step):
    return run_step(cfg, weights, cache, prompt, jnp.int32(0))


def generate(cfg, weights, prompt, steps, mesh, jitted=True):
    """Greedy decoding: prompt [batch, length] -> (the generated tokens
    [batch, steps] as lists, the logits of each step)."""
    run_step = make_decode_step(jitted)
    cache = KVCache.init(cfg, prompt.shape[0], mesh)
    logits, token, cache = prefill(cfg, weights, cache, prompt, run_step)
    generated, all_logits = [token], [logits]
    position = prompt.shape[1]
    for _ in range(steps - 1):
        logits, token, cache = run_step(cfg, weights, cache, token[:, None], jnp.int32(position))
        generated.append(token)
        all_logits.append(logits)
        position += 1
    return jnp.stack(generated, axis=1), all_logits, cache
