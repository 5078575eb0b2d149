"""Logical axes and the rules that map them to mesh axes: weights and
activations name what each dimension is ('embed', 'heads', ...), and one
table says which mesh axis shards it (Megatron-style tensor parallelism over
'model', the batch over 'data')."""
from jax.sharding import PartitionSpec as P

RULES = {
    "batch": "data",
    "seq": None,
    "embed": None,
    "vocab": "model",
    "heads": "model",
    "kv_heads": "model",
    "head_dim": None,
    "ffw": "model",
    "experts": None,
    "channel": None,
}


def logical_to_spec(axes, rules=RULES):
    """P(...) for a tuple of logical axis names (None: not sharded)."""
    return P(*(None if axis is None else rules[axis] for axis in axes))


def spec_tree(axes_tree, rules=RULES):
    """The PartitionSpec of every leaf of a tree of logical-axis tuples."""
    if isinstance(axes_tree, dict):
        return {key: spec_tree(value, rules) for key, value in axes_tree.items()}
    if isinstance(axes_tree, list):
        return [spec_tree(value, rules) for value in axes_tree]
    return logical_to_spec(axes_tree, rules)


ACTIVATIONS = {
    "tokens": ("batch", "seq"),
    "hidden": ("batch", "seq", "embed"),
    "logits": ("batch", "seq", "vocab"),
}


def activation(name):
    return logical_to_spec(ACTIVATIONS[name])
