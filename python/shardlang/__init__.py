"""shardlang from Python: an interpreter of a JAX-like language with sharded
types, run on a simulated TPU mesh (the C++ interpreter through its public
embedding API; see docs/notebooks.md).

    import numpy as np, shardlang
    interp = shardlang.Interpreter(platform="tpu", devices=8, chip="v5e")
    interp.run("import jax\\njax.set_mesh(jax.make_mesh((4, 2), ('X', 'Y')))")
    interp.set("x", np.arange(16, dtype=np.float32).reshape(8, 2), spec=("X", "Y"))
    interp.run("import jax.numpy as jnp\\ny = jnp.sin(x) * 2")
    interp.get("y")           # a NumPy array
    interp.type_of("y")       # 'float32[8@X,2@Y]'

Errors raise shardlang.Error, whose `diagnostic` has file, line, column,
code, message and hint. The Jupyter kernel is shardlang.kernel.
"""
from ._shardlang import Diagnostic, Error, Interpreter, Note, Value, __version__

__all__ = ["Diagnostic", "Error", "Interpreter", "Note", "Value", "__version__"]
