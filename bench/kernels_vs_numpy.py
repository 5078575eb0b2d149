#!/usr/bin/python3
"""Times shardlang's local kernels against NumPy, side by side in one run
(the mesh-runtime issue's benchmark; not a test).

Cases: f32 matmul 4096x4096 sharded 4x2, sin on 8192x8192 f32 sharded over 8
devices, an elementwise chain, and a sum over a sharded axis. shardlang runs
one .shl program on 8 cpu devices whose %timeit lines give its times; NumPy
runs the same operations on one host array. Prints both best-of times and the
ratios: throughput (NumPy time / shardlang time) for the matmul, time
(shardlang / NumPy) for the rest, with the issue's targets.

Usage: /usr/bin/python3 bench/kernels_vs_numpy.py [path/to/shardlang] [repeats]
(Debian's python3-numpy: the python3 first on PATH may have no numpy.)
"""
import glob
import os
import re
import subprocess
import sys
import tempfile
import timeit

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SETUP = """\
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
grid = jax.make_mesh((4, 2), ('x', 'y'))
line = jax.make_mesh((8,), ('d',))
a = jax.device_put(jnp.ones((4096, 4096), dtype=jnp.float32) * 0.5, NamedSharding(grid, P('x', None)))
b = jax.device_put(jnp.ones((4096, 4096), dtype=jnp.float32) * 0.25, NamedSharding(grid, P(None, 'y')))
x = jax.device_put((jnp.arange(8192 * 8192, dtype=jnp.float32).reshape(8192, 8192) % 1000.0) * 0.01,
                   NamedSharding(line, P('d')))
"""

# (name, shardlang statement, NumPy function of (a, b, x), kind)
CASES = [
    ("matmul f32 4096^2, 4x2", "c = a @ b", lambda a, b, x: a @ b, "throughput"),
    ("sin f32 8192^2, 8 devices", "y = jnp.sin(x)", lambda a, b, x: np.sin(x), "time"),
    ("chain exp(-x*x)*0.5+x", "y = jnp.exp(-x * x) * 0.5 + x",
     lambda a, b, x: np.exp(-x * x) * np.float32(0.5) + x, "time"),
    ("sum over sharded axis 0", "s = jnp.sum(x, axis=0)", lambda a, b, x: np.sum(x, axis=0), "time"),
]

UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "ms": 1e-3, "s": 1.0}


def find_shardlang():
    if len(sys.argv) > 1:
        return sys.argv[1]
    candidates = [p for p in glob.glob(os.path.join(ROOT, "build*", "shardlang")) if os.access(p, os.X_OK)]
    if not candidates:
        sys.exit("no build*/shardlang: build it, or pass its path")
    # Prefer an optimised build.
    candidates.sort(key=lambda p: ("perf" not in p and "release" not in p.lower(), -os.path.getmtime(p)))
    return candidates[0]


def shardlang_times(binary, repeats):
    program = SETUP + "".join(f"%timeit -n 1 -r {repeats} {stmt}\n" for _, stmt, _, _ in CASES)
    with tempfile.NamedTemporaryFile("w", suffix=".shl", delete=False) as f:
        f.write(program)
        path = f.name
    try:
        run = subprocess.run([binary, "run", "--platform", "cpu", "--devices", "8", path],
                             capture_output=True, text=True, timeout=1800)
    finally:
        os.unlink(path)
    if run.returncode != 0:
        sys.exit(f"shardlang failed ({run.returncode}):\n{run.stdout}\n{run.stderr}")
    times = [float(value) * UNITS[unit] for value, unit in
             re.findall(r"best of \d+: ([0-9.]+) (ns|us|\u00b5s|ms|s) per loop", run.stdout)]
    if len(times) != len(CASES):
        sys.exit(f"expected {len(CASES)} %timeit lines, got:\n{run.stdout}")
    return times


def numpy_times(repeats):
    a = np.full((4096, 4096), 0.5, np.float32)
    b = np.full((4096, 4096), 0.25, np.float32)
    x = (np.arange(8192 * 8192, dtype=np.float32).reshape(8192, 8192) % np.float32(1000.0)) * np.float32(0.01)
    return [min(timeit.repeat(lambda: function(a, b, x), number=1, repeat=repeats)) for _, _, function, _ in CASES]


def main():
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    binary = find_shardlang()
    print(f"shardlang: {binary}; NumPy {np.__version__}; {os.cpu_count()} host cores; best of {repeats}")
    ours = shardlang_times(binary, repeats)
    theirs = numpy_times(repeats)
    print(f"{'case':<28}{'shardlang':>12}{'NumPy':>12}  ratio")
    for (name, _, _, kind), mine, numpy_time in zip(CASES, ours, theirs):
        if kind == "throughput":
            ratio = f"{numpy_time / mine:.2f}x NumPy's throughput (target >= 0.9)"
        else:
            ratio = f"{mine / numpy_time:.2f}x NumPy's time (target <= 1.0)"
        print(f"{name:<28}{mine * 1e3:>10.1f}ms{numpy_time * 1e3:>10.1f}ms  {ratio}")


if __name__ == "__main__":
    main()
