#!/usr/bin/python3
"""Times shardlang against NumPy, side by side in one run (the mesh-runtime
and the fast-kernels issues' benchmark; not a test).

Cases: f32 and bf16 matmul 4096x4096 sharded 4x2, sin on 8192x8192 f32 over 8
devices, an eager elementwise chain, a sum over a sharded axis, a jitted
chain and a jitted softmax, an eager `x * 2 + 1` on 1,024 elements over 8
devices, the peak resident memory of device_put of a 1 GiB host array onto 8
shards, and the host overhead of a cached jitted call (bench/jit_overhead).
shardlang runs one .shl program on 8 cpu devices whose %timeit lines give its
times; NumPy runs the same operations on one host array, in a child process
whose OpenBLAS runs the fastest kernel for this CPU (OPENBLAS_CORETYPE set,
OPENBLAS_L2_SIZE unset: some machines set both for older OpenBLAS builds).
shardlang runs in this process's environment as it is: it picks its BLAS
kernel itself. Prints both best-of times and the ratios: throughput (NumPy
time / shardlang time) for the matmuls, time (shardlang / NumPy) for the
rest, each with its target.

Usage: /usr/bin/python3 bench/kernels_vs_numpy.py [path/to/shardlang] [repeats]
(Debian's python3-numpy: the python3 first on PATH may have no numpy.)
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SETUP = """\
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
grid = jax.make_mesh((4, 2), ('x', 'y'))
line = jax.make_mesh((8,), ('d',))
a = jax.device_put(jnp.ones((4096, 4096), dtype=jnp.float32) * 0.5, NamedSharding(grid, P('x', None)))
b = jax.device_put(jnp.ones((4096, 4096), dtype=jnp.float32) * 0.25, NamedSharding(grid, P(None, 'y')))
a16 = a.astype(jnp.bfloat16)
b16 = b.astype(jnp.bfloat16)
x = jax.device_put((jnp.arange(8192 * 8192, dtype=jnp.float32).reshape(8192, 8192) % 1000.0) * 0.01,
                   NamedSharding(line, P('d')))
y = jax.device_put((jnp.arange(4096 * 4096, dtype=jnp.float32).reshape(4096, 4096) % 1000.0) * 0.01,
                   NamedSharding(line, P('d')))
z = jax.device_put((jnp.arange(8192 * 4096, dtype=jnp.float32).reshape(8192, 4096) % 1000.0) * 0.01,
                   NamedSharding(line, P('d')))
small = jax.device_put(jnp.arange(1024, dtype=jnp.float32), NamedSharding(line, P('d')))

@jax.jit
def chain(v):
  return jnp.exp(-v * v) * 0.5 + v * jnp.tanh(v) - 1

@jax.jit
def softmax(v):
  e = jnp.exp(v - jnp.max(v, axis=-1, keepdims=True))
  return e / jnp.sum(e, axis=-1, keepdims=True)

chain(y)
softmax(z)
"""

NUMPY_SETUP = """\
import numpy as np
a = np.full((4096, 4096), 0.5, np.float32)
b = np.full((4096, 4096), 0.25, np.float32)
x = (np.arange(8192 * 8192, dtype=np.float32).reshape(8192, 8192) % np.float32(1000.0)) * np.float32(0.01)
y = (np.arange(4096 * 4096, dtype=np.float32).reshape(4096, 4096) % np.float32(1000.0)) * np.float32(0.01)
z = (np.arange(8192 * 4096, dtype=np.float32).reshape(8192, 4096) % np.float32(1000.0)) * np.float32(0.01)
small = np.arange(1024, dtype=np.float32)

def chain(v):
  return np.exp(-v * v) * np.float32(0.5) + v * np.tanh(v) - np.float32(1)

def softmax(v):
  e = np.exp(v - np.max(v, axis=-1, keepdims=True))
  return e / np.sum(e, axis=-1, keepdims=True)
"""

# (name, shardlang statement, NumPy statement, loops per timing, kind, target):
# kind "throughput" compares NumPy's time with ours (higher is better), "time"
# ours with NumPy's (lower is better). The bf16 matmul is compared with
# NumPy's f32 one (NumPy has no bf16).
CASES = [
    ("matmul f32 4096^2, 4x2", "c = a @ b", "a @ b", 1, "throughput", 0.9),
    ("matmul bf16 4096^2, 4x2", "c = a16 @ b16", "a @ b", 1, "throughput", 1.5),
    ("sin f32 8192^2, 8 devices", "s = jnp.sin(x)", "np.sin(x)", 1, "time", 1.0),
    ("eager exp(-x*x)*0.5+x 8192^2", "s = jnp.exp(-x * x) * 0.5 + x", "np.exp(-x * x) * np.float32(0.5) + x", 1,
     "time", 1.0),
    ("sum over sharded axis 0", "s = jnp.sum(x, axis=0)", "np.sum(x, axis=0)", 1, "time", 1.0),
    ("jit chain 4096^2, 8 devices", "s = chain(y)", "chain(y)", 1, "time", 0.35),
    ("jit softmax [8192,4096] rows", "s = softmax(z)", "softmax(z)", 1, "time", 0.5),
    ("eager x*2+1, 1024 on 8 dev", "t = small * 2 + 1", "small * np.float32(2) + np.float32(1)", 2000, "time", 3.0),
]

DEVICE_PUT = """\
import jax
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((8,), ('d',))
host = np.ones((16384, 16384), dtype=np.float32)
placed = jax.device_put(host, NamedSharding(mesh, P('d')))
print(placed.shape, len(placed.sharding.device_set))
"""
NUMPY_DEVICE_PUT = "import numpy as np\nhost = np.ones((16384, 16384), dtype=np.float32)\nprint(host.shape)\n"

UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "ms": 1e-3, "s": 1.0}


def find_shardlang():
    if len(sys.argv) > 1 and not sys.argv[1].isdigit():
        return sys.argv[1]
    candidates = [p for p in glob.glob(os.path.join(ROOT, "build*", "shardlang")) if os.access(p, os.X_OK)]
    if not candidates:
        sys.exit("no build*/shardlang: build it, or pass its path")
    # Prefer an optimised build.
    candidates.sort(key=lambda p: ("perf" not in p and "release" not in p.lower(), -os.path.getmtime(p)))
    return candidates[0]


def fastest_openblas_core():
    """The OpenBLAS core type for this CPU's widest vector unit."""
    flags = set()
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        return "Cooperlake" if "avx512_bf16" in flags else "SkylakeX"
    return "Haswell" if {"avx2", "fma"} <= flags else None


def shardlang_times(binary, repeats):
    program = SETUP + "".join(f"%timeit -n {loops} -r {repeats} {stmt}\n" for _, stmt, _, loops, _, _ in CASES)
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


def numpy_environment():
    env = dict(os.environ)
    env.pop("OPENBLAS_L2_SIZE", None)
    core = fastest_openblas_core()
    if core:
        env["OPENBLAS_CORETYPE"] = core
    else:
        env.pop("OPENBLAS_CORETYPE", None)
    return env


def numpy_times(repeats):
    """NumPy's best times per loop, and the OpenBLAS kernel it ran, from a child."""
    script = NUMPY_SETUP + f"""
import ctypes, json, timeit
cases = {[(stmt, loops) for _, _, stmt, loops, _, _ in CASES]!r}
times = [min(timeit.repeat(stmt, number=loops, repeat={repeats}, globals=globals())) / loops for stmt, loops in cases]
core = ctypes.CDLL("libopenblas.so.0").openblas_get_corename
core.restype = ctypes.c_char_p
print(json.dumps({{"times": times, "core": core().decode(), "numpy": np.__version__}}))
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=numpy_environment(),
                         timeout=1800)
    if run.returncode != 0:
        sys.exit(f"NumPy side failed:\n{run.stderr}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def peak_resident_gib(command, env=None):
    """Peak resident set size of one child process, in GiB."""
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        sys.exit(f"{command[0]} failed: {child.stderr.read().decode()}")
    return usage.ru_maxrss / (1 << 20)  # KiB -> GiB


def device_put_memory(binary):
    with tempfile.NamedTemporaryFile("w", suffix=".shl", delete=False) as f:
        f.write(DEVICE_PUT)
        path = f.name
    try:
        ours = peak_resident_gib([binary, "run", "--platform", "cpu", "--devices", "8", path])
    finally:
        os.unlink(path)
    theirs = peak_resident_gib([sys.executable, "-c", NUMPY_DEVICE_PUT], env=numpy_environment())
    return ours, theirs


def jit_overhead(binary):
    """bench/jit_overhead's last line (it builds against the binary's build folder)."""
    run = subprocess.run(["sh", os.path.join(ROOT, "bench", "jit_overhead.sh"), os.path.dirname(binary), "5000"],
                         capture_output=True, text=True, timeout=1800)
    lines = (run.stdout or run.stderr).strip().splitlines()
    return lines[-1] if lines else f"jit_overhead.sh failed ({run.returncode})"


def main():
    arguments = [a for a in sys.argv[1:] if a.isdigit()]
    repeats = int(arguments[0]) if arguments else 5
    binary = find_shardlang()
    ours_rss, numpy_rss = device_put_memory(binary)
    ours = shardlang_times(binary, repeats)
    numpy_side = numpy_times(repeats)
    theirs = numpy_side["times"]
    print(f"shardlang: {binary}; NumPy {numpy_side['numpy']} with OpenBLAS's {numpy_side['core']} kernel; "
          f"{os.cpu_count()} host cores; best of {repeats}")
    print(f"{'case':<32}{'shardlang':>12}{'NumPy':>12}  ratio")
    for (name, _, _, _, kind, target), mine, numpy_time in zip(CASES, ours, theirs):
        if kind == "throughput":
            ratio = numpy_time / mine
            verdict = f"{ratio:.2f}x NumPy's f32 throughput (target >= {target})"
            met = ratio >= target
        else:
            ratio = mine / numpy_time
            verdict = f"{ratio:.2f}x NumPy's time (target <= {target})"
            met = ratio <= target
        scale, unit = (1e6, "us") if numpy_time < 1e-3 else (1e3, "ms")
        print(f"{name:<32}{mine * scale:>10.1f}{unit}{numpy_time * scale:>10.1f}{unit}  {verdict}: "
              f"{'met' if met else 'NOT met'}")
    print(f"{'device_put 1 GiB onto 8 shards':<32}{ours_rss:>9.3f}GiB{numpy_rss:>9.3f}GiB  peak resident "
          f"(target <= 1.1 GiB): {'met' if ours_rss <= 1.1 else 'NOT met'}")
    print(f"jit overhead (bench/jit_overhead): {jit_overhead(binary)}")


if __name__ == "__main__":
    main()
