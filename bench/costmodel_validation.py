#!/usr/bin/env python3
"""The cost model against the published measurements of costmodel.md, end to
end: each case is a shardlang program, run through `shardlang check --profile
--chip CHIP` (no data is needed, so 8192^2 products cost nothing to check);
the predicted time of a case is the sum of the profile rows from its line
marked `# measured from here` on (the setup's device_puts before it are not
part of the published measurement). Prints case, chip, published, predicted, ratio and the
band costmodel.md allows; exits 1 when a ratio falls outside its band.

Usage: bench/costmodel_validation.py [path/to/shardlang]
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

HEADER = """import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P, NamedSharding
"""

# (case, chip, published seconds, band, program).
CASES = [
    ("naive jit matmul, int32 1024x2048x8192, 2x4", "v5e", 311e-6, 0.15, HEADER + """
mesh = jax.make_mesh((2, 4), ('X', 'Y'))
a = jax.device_put(jnp.ones((1024, 2048), dtype=jnp.int32), NamedSharding(mesh, P('X', 'Y')))
w = jax.device_put(jnp.ones((2048, 8192), dtype=jnp.int32), NamedSharding(mesh, P(None, 'Y')))
f = jax.jit(lambda x, y: x @ y)  # measured from here
c = f(a, w)
"""),
    ("shard_map collective matmul (ppermute ring)", "v5e", 244e-6, 0.15, HEADER + """
from functools import partial
mesh = jax.make_mesh((2, 4), ('X', 'Y'))
a = jax.device_put(jnp.ones((1024, 2048), dtype=jnp.int32), NamedSharding(mesh, P('X', 'Y')))
w = jax.device_put(jnp.ones((2048, 8192), dtype=jnp.int32), NamedSharding(mesh, P(None, 'Y')))

@jax.jit  # measured from here
@partial(jax.shard_map, mesh=mesh, in_specs=(P('X', 'Y'), P(None, 'Y')), out_specs=P('X', 'Y'))
def collective_matmul(lhs_block, rhs):
    size = jax.lax.axis_size('Y')
    index = jax.lax.axis_index('Y')
    rows = rhs.shape[0] // size
    shift = [(j, (j - 1) % size) for j in range(size)]
    out = jnp.zeros((lhs_block.shape[0], rhs.shape[1]), dtype=jnp.int32)
    for step in range(size):
        block = (index + step) % size
        rhs_rows = jax.lax.dynamic_slice_in_dim(rhs, block * rows, rows, axis=0)
        if step < size - 1:
            next_block = jax.lax.ppermute(lhs_block, 'Y', shift)
        out = out + lhs_block @ rhs_rows
        if step < size - 1:
            lhs_block = next_block
    return out

c = collective_matmul(a, w)
"""),
    ("jnp.dot 8192^2 f32, one device", "v2", 49.7e-3, 0.15, HEADER + """
x = jnp.ones((8192, 8192), dtype=jnp.float32)
y = jnp.dot(x, x)  # measured from here
"""),
    ("jnp.dot 8192^2 f32, P('a',None) x P(None,'b'), 4x2", "v2", 7.47e-3, 0.25, HEADER + """
mesh = jax.make_mesh((4, 2), ('a', 'b'))
x = jax.device_put(jnp.ones((8192, 8192), dtype=jnp.float32), NamedSharding(mesh, P('a', None)))
y = jax.device_put(jnp.ones((8192, 8192), dtype=jnp.float32), NamedSharding(mesh, P(None, 'b')))
z = jnp.dot(x, y)  # measured from here
"""),
    ("jnp.sin 8192^2 f32 sharded 8 ways", "v2", 2.4e-3, 0.25, HEADER + """
mesh = jax.make_mesh((8,), ('a',))
x = jax.device_put(jnp.ones((8192, 8192), dtype=jnp.float32), NamedSharding(mesh, P('a')))
y = jnp.sin(x)  # measured from here
"""),
]

ROW = re.compile(r"^(\S+:\d+)\s.*\s(\d+(?:\.\d+)?)\s+\d+(?:\.\d+)?%$")


def predicted_seconds(binary, folder, index, chip, program):
    path = os.path.join(folder, f"case{index}.shl")
    with open(path, "w", encoding="utf-8") as f:
        f.write(program)
    first = next(number for number, line in enumerate(program.splitlines(), 1) if line.endswith("# measured from here"))
    done = subprocess.run([binary, "check", "--profile", "--chip", chip, "--devices", "8", path],
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"case {index}: shardlang check exited {done.returncode}: {done.stderr.strip()[-400:]}")
    micros = [float(m.group(2)) for m in map(ROW.match, done.stdout.splitlines())
              if m and m.group(1).startswith(f"case{index}.shl:") and int(m.group(1).split(":")[1]) >= first]
    if not micros or "more rows" in done.stdout:
        raise RuntimeError(f"case {index}: the profile does not list every measured row:\n{done.stdout}")
    return sum(micros) * 1e-6


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    binary = sys.argv[1] if len(sys.argv) > 1 else next(iter(sorted(glob.glob(os.path.join(root, "build*", "shardlang")),
                                                                     key=os.path.getmtime, reverse=True)), None)
    if not binary or not os.access(binary, os.X_OK):
        print("no shardlang binary: build it, or pass its path", file=sys.stderr)
        return 2
    print(f"{'case':<52}  {'chip':<4}  {'published µs':>12}  {'predicted µs':>12}  {'ratio':>6}  band")
    outside = 0
    with tempfile.TemporaryDirectory() as folder:
        for index, (name, chip, published, band, program) in enumerate(CASES):
            predicted = predicted_seconds(binary, folder, index, chip, program)
            ratio = predicted / published
            within = abs(ratio - 1) <= band
            outside += not within
            print(f"{name:<52}  {chip:<4}  {published * 1e6:>12.1f}  {predicted * 1e6:>12.1f}  {ratio:>6.3f}  "
                  f"±{band * 100:.0f}%{'' if within else '  OUTSIDE'}")
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main())
