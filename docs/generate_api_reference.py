#!/usr/bin/env python3
"""Regenerates docs/api-reference.md from the interpreter's own tables.

Usage: generate_api_reference.py --lister build/tests/shardlang_list_api [--check] [--output FILE]

The lister (tests/docs/list_api.cpp, CMake target shardlang_list_api) prints
every member of every built-in module with its signature, an array's
attributes, and the primitive table. This script turns that listing into
Markdown, adding for each module the hand-written section "What differs from
JAX" below (from the specs: language.md, sharding.md, runtime.md, cli.md).

--check compares the generated text with the checked-in file instead of
writing it, prints a diff and exits 1 when they differ (the ctest case
docs/api-reference).
"""
import argparse
import difflib
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

DOCUMENT = Path(__file__).resolve().parent / "api-reference.md"

# The modules in the order a JAX user meets them, with how a script names
# them and what shardlang does differently. Every module the lister reports
# must appear here (the script fails otherwise), so a new module gets a
# section and its differences written down.
MODULES = [
    ("jax", "import jax", [
        "Devices are simulated: `jax.devices()` lists the devices of the platform and chip chosen on the "
        "command line (`--platform tpu|cpu`, `--devices N`, `--chip v2|v3|v4|v5e|v5p|v6e`; default 8 "
        "devices of a TPU v5e), or by `jax.config.update('jax_num_cpu_devices', N)` before first use.",
        "`jax.make_mesh` gives **Explicit** axes by default, as JAX 0.11 does, and orders devices as JAX's "
        "`mesh_utils` does for the chip's topology (the tutorials' `0 1 2 3 6 7 4 5` on a v2-8).",
        "`jax.typeof(x)` (and `x.aval`) is the abstract value, JAX's `ShapedArray`: it prints the sharding in "
        "the type, `float32[8@X,2@Y]` (diagnostics and `check` use the short dtype names, `f32[8@X,2@Y]`), "
        "and has `shape`, `dtype`, `sharding` (with `.spec` and `.mesh`), `vma` and `mat` (the varying, "
        "unreduced and reduced Manual axes inside `shard_map`).",
        "`jax.effects_barrier()` returns at once: debug prints happen in program order as it runs. Inside a "
        "`shard_map` body, `jax.debug.print` prints once per device, and `str` of a value shows each device's "
        "block under its mesh coordinates, as JAX's eager shard_map does.",
        "`jax.jit`: a function is traced once per input types, partitioned once and cached; "
        "`f.lower(...).compile()` gives the per-device program, whose `as_text()` is HLO-like text with "
        "XLA's collective names (not real HLO) and whose `cost_analysis()` returns `flops`, "
        "`bytes accessed`, `collective bytes` and `estimated time` from shardlang's TPU cost model. "
        "`donate_argnums`, `keep_unused`, `inline` are accepted and have no effect.",
        "`jax.make_jaxpr(f)(*args)` and `jax.jit(f).trace(*args).jaxpr` print as JAX 0.11 prints a jaxpr "
        "(docs/architecture.md \"Printing a jaxpr\"); `make_jaxpr`'s `axis_env` and `abstracted_axes` "
        "raise NotImplementedError (collectives are traced inside shard_map or vmap; shapes are static).",
        "`jax.grad` / `value_and_grad` differentiate through the primitives that have a VJP rule (the "
        "`grad` column of the primitive table below).",
        "`jax.vjp`'s function walks the traced program backwards on each call; an integer or boolean "
        "primal gets zeros of its dtype (JAX: float0).",
        "`jax.linear_transpose` traces the function at its primals (a ShapeDtypeStruct stands for zeros) "
        "and checks linearity when the transposed function is called, as JAX's backward pass does: a "
        "primitive with no transpose rule raises JAX's NotImplementedError; a product of two linear "
        "values raises a bare AssertionError (JAX's assert prints its operands). The transposed function "
        "is a `jax.tree_util.Partial` without leaves (JAX's holds the program's constants), so one made "
        "inside a jitted function cannot be returned from it and called outside.",
        "`jax.device_get` gives each array leaf as `np.asarray` does: shardlang's NumPy arrays are its own "
        "arrays, uncommitted on the default device, so they print as `Array(...)`.",
        "`jax.eval_shape` traces without running; `jax.ShapeDtypeStruct` (with `sharding=` a "
        "NamedSharding) stands for an array in `eval_shape` and `jit(f).lower(...)`.",
        "`jax.vmap` batches every primitive through its batching rule (ops/batching.hpp); random "
        "sampling, scatters, debug prints and indexing with mapped indices apply the primitive once per "
        "mapped index and stack the results. `axis_name` serves `psum pmean pmax pmin all_gather "
        "psum_scatter ppermute axis_index axis_size` inside; `all_to_all` over a vmap axis is not "
        "supported. Axis specs are ints and None (no `MappingSpec`).",
        "`jax.shard_map` errors name the user's function and the line that returned a wrongly varying "
        "value, in eager calls too, and say which collective would fix it.",
        "`process_count`, `process_index`, `local_devices` and an array's `addressable_shards` describe "
        "a run over several processes (`mpirun -np P shardlang run`, docs/scale-out.md); a device's repr "
        "shows the simulated slice's one host (`process_index=0`).",
        "Not there: `pmap` and host callbacks (`jax.pure_callback`, `jax.debug.callback`).",
    ]),
    ("jax.numpy", "import jax.numpy as jnp", [
        "x64 is off: `float32` and `int32` are the defaults. `bfloat16`/`float16` are stored as 16 bits and "
        "computed in float32 with round-to-nearest-even on store, as XLA's CPU backend does; integer "
        "overflow wraps.",
        "Creation, linear algebra and indexing functions take `out_sharding=` as in JAX 0.11's explicit "
        "sharding mode; a contraction sharded on both sides must be given one "
        "(`sharding/ambiguous-contraction`, with a hint listing the choices).",
        "`print(x)` prints as NumPy does; `repr(x)` and the REPL echo print `Array([...], dtype=float32)`.",
        "Only the members listed exist; any other `jnp` name is an `AttributeError`.",
        "`nonzero`, `flatnonzero`, `argwhere`, one-argument `where`, `unique` and `bincount` take their "
        "result's size from the values outside transformations; under `jit` (or `vmap`) they need "
        "`size=` / `length=`, and raise JAX's `ConcretizationTypeError` without it. `unique` works on "
        "the flattened array only (`axis=None`).",
        "`searchsorted` compares every query with every element (JAX's `method='compare_all'`) whatever "
        "`method` says; the indices are the same. `cumprod`, `cummax` and `cummin` are an associative "
        "scan of slices, concatenations and the elementwise operation (as `lax.associative_scan`), so "
        "their gradients are those of `multiply`, `maximum` and `minimum`.",
        "`mean` of `bfloat16`/`float16` sums in the input's dtype (the kernel accumulates in float32, as "
        "precise as JAX's upcast), so its jaxpr shows no `convert_element_type` around `reduce_sum`: JAX's "
        "converts are fused away by XLA, and shardlang, whose memory plan and cost model charge every "
        "equation (its fusions only speed up running), would otherwise count a float32 copy of the "
        "operand in `check`'s memory and time. `upcast_f16_for_computation` is "
        "accepted and changes nothing. A jnp reduction composed of several primitives (a `mean`, a `sum` "
        "with `where=` or of booleans) pays one eager dispatch, as JAX's jitted function does.",
    ]),
    ("jax.numpy.linalg", "import jax.numpy as jnp", [
        "`norm` and `vector_norm` are composed from jnp members as JAX composes them; `norm`'s matrix "
        "orders 2, -2 and `'nuc'` take the singular values from the `svd` primitive.",
        "`solve` and `inv` bind the `linalg_solve` primitive: LAPACK's LU solve with partial pivoting "
        "(`sgesv`, from Debian's OpenBLAS) on each device's batch matrices; 16-bit floats solve in "
        "float32. As JAX's linalg sharding rule, an Explicit-sharded operand must leave the matrix dims "
        "unsharded. A singular matrix gives NaN (JAX gives inf or NaN).",
        "`cholesky` binds the `cholesky` primitive: LAPACK's `spotrf` on the lower triangle of the "
        "(by default symmetrized) input; a matrix that is not positive definite gives NaN, as JAX's. "
        "`slogdet` binds the `slogdet` primitive (LAPACK's `sgetrf` LU factorization; a singular matrix "
        "gives sign 0 and log -inf) and returns JAX's named `SlogdetResult(sign, logabsdet)`; `det` is "
        "`sign * exp(logabsdet)`, so its gradient is `det * inv(a).T` as JAX's.",
        "`qr`, `svd` and `eigh` / `eigvalsh` bind the `qr` (LAPACK's `sgeqrf` and `sorgqr`), `svd` "
        "(`sgesdd`) and `eigh` (`ssyevd`) primitives, one primitive output per result, and return "
        "JAX's named `QRResult`, `SVDResult` and `EighResult`. Signs of the vectors are LAPACK's (as "
        "JAX's on CPU). Gradients are JAX 0.11's rules transposed: QR's for every shape and mode, SVD's "
        "except the full matrices of a non-square matrix (JAX's `NotImplementedError`), eigh's from the "
        "symmetrized input. `qr(mode='raw')` binds the `geqrf` primitive (LAPACK's packed factorization, "
        "not differentiable, as JAX's); "
        "`svd(hermitian=True)` is JAX's composition on `eigh`; `svd(subset_by_index=...)` raises JAX's "
        "CPU `NotImplementedError`.",
    ]),
    ("jax.lax", "from jax import lax", [
        "Collectives (`psum`, `pmean`, `pmax`, `pmin`, `all_gather`, `all_to_all`, `ppermute`, "
        "`psum_scatter`, `axis_index`) run only inside `jax.shard_map`; an axis no enclosing `shard_map` "
        "binds is `sharding/unbound-axis`. They really move data between the simulated devices.",
        "`with_sharding_constraint` on an all-Explicit mesh is an assertion (JAX's behaviour); on Auto "
        "axes it is a constraint the partitioner obeys.",
        "`cond`, `fori_loop`, `scan`, `while_loop` check that the carry keeps its type and sharding, as "
        "JAX does.",
        "`fori_loop`, `scan`, `while_loop` (and `map`) run their body once per iteration as the trace "
        "follows them: a jaxpr shows every iteration's equations, not one `scan` / `while` equation. "
        "So under `jax.jit` a `while_loop` whose predicate depends on traced array data raises "
        "NotImplementedError (a predicate on a Python-int counter is known and works). The compiled "
        "`as_text()` prints each loop as XLA does, a `while` with its trip count and its body once "
        "(`jit(f)/while/body/...` op_names); the backward pass of a differentiated loop is a loop of its "
        "own there, as JAX transposes a scan into a scan.",
        "`reduce_window` with `add`, `max` or `min` and the identity as `init_value` is JAX's primitive; "
        "another `init_value` is that primitive's result combined with it; any other computation (`lax.mul`, "
        "a lambda) is unrolled into one strided slice per window position folded into the accumulator "
        "(a jaxpr shows those equations, not JAX's one generic `reduce_window`; an operand split over "
        "Explicit axes is folded whole, then split). Both differentiate in reverse mode, where JAX's generic "
        "reduce_window has no transpose rule. One operand only (no pytrees), no `base_dilation` or negative "
        "padding with a general computation.",
    ]),
    ("jax.random", "import jax", [
        "Bit-exact with JAX: threefry2x32 in both the stable and the partitionable mode "
        "(`jax.config.update('jax_threefry_partitionable', ...)`). In partitionable mode random "
        "generation on a sharded output needs no communication; in stable mode it does.",
        "`bits`, `uniform`, `normal`, `truncated_normal`, `randint` and `bernoulli` take `out_sharding=` "
        "as in JAX: the sample is typed and placed with it, holds the unsharded draw's values, and only "
        "its shards count in device memory.",
        "`gumbel` (modes `'low'` and `'high'`; `'highest'` is not there), `exponential`, `laplace` and "
        "`categorical` are JAX's formulas on `uniform`, so they draw from the same bits.",
        "The listing shows `shape=()` defaults as `0.0`: the signature parser reads `()` as a number "
        "(a known issue of the listing; the functions themselves take `shape=()`).",
    ]),
    ("jax.nn", "import jax", [
        "Composed from jnp/lax members as JAX composes them (so they run under jit, grad, vmap and in "
        "check mode); `sigmoid` is written with `tanh` so that its gradient stays finite far from 0. "
        "`dot_product_attention` is the XLA implementation (`implementation=None` or `'xla'`). "
        "`jax.nn.normalize` is not there: JAX 0.11 removed it (use `standardize`).",
    ]),
    ("jax.nn.initializers", "import jax", [
        "Initializers take `(key, shape, dtype=None)`; `zeros` and `ones` also `out_sharding`. "
        "`orthogonal` and `delta_orthogonal` are not there.",
    ]),
    ("jax.sharding", "from jax.sharding import Mesh, PartitionSpec as P, NamedSharding", [
        "`Mesh(devices, names)` gives **Auto** axes by default, as in JAX 0.11; `AxisType` has "
        "`Explicit`, `Auto`, `Manual`. Types show only Explicit axes.",
        "`PartitionSpec` does not accept `unreduced=` / `reduced=` yet.",
        "`use_mesh` is `set_mesh` (no `with` statement in the language).",
    ]),
    ("jax.debug", "import jax", [
        "`visualize_array_sharding` draws JAX's picture (same characters, widths and labels, such as "
        "`TPU 0,2,4,6`) for 1-D and 2-D arrays; for higher ranks it goes beyond JAX and draws the 2-D "
        "picture of each leading index, titled.",
        "`jax.debug.print` prints at run time, on every call of a jitted function.",
    ]),
    ("jax.ad_checkpoint", "import jax", [
        "`checkpoint` (also `jax.checkpoint` and `jax.remat`) recomputes on the way back what its policy "
        "does not save; `prevent_cse` is accepted and has nothing to do (shardlang's jit does not merge "
        "the recomputation with the forward pass); `policy` is one of `jax.checkpoint_policies` or a "
        "function of one's own, called as `policy(prim, *avals)` (JAX's `**params` are not passed). "
        "`print_saved_residuals` lists the forward "
        "values shardlang's VJP rules read (where JAX's linearization saves `cos x` for `sin x`, "
        "shardlang saves `x`), with the file's base name in the source.",
    ]),
    ("jax.checkpoint_policies", "import jax", [
        "`save_anything_except_these_names` saves everything but the names given (JAX 0.11's saves everything).",
    ]),
    ("jax.ref", "import jax", [
        "`jax.new_ref` (also `jax.ref.new_ref`) outside any transformation copies its value into a buffer the "
        "`Ref` owns: `ref[idx] = v` writes into it in place (`unsafe_buffer_pointer()` stays) and `ref[idx]` "
        "reads a new array. A jitted function that reads or writes a `Ref` it is passed or closes over gets "
        "its value as a program input and writes its final value back on every call, cached ones too.",
        "A `Ref` made inside a transformation is a value of its trace: such functions transform as pure ones. "
        "Under `vmap` a `Ref` argument is mapped (each instance writes its own entry). Writing a value "
        "traced inside `grad`, `vmap` or a control-flow body into a `Ref` made outside it is refused: JAX's "
        "messages for a differentiated value and for a vmapped one, NotImplementedError for the others "
        "(JAX carries such writes through `lax.scan`); `jax.vjp`'s `with_refs` is not provided.",
        "`memory_space=` and `pin=` raise JAX's eager NotImplementedError (they only work inside `jit` in JAX).",
    ]),
    ("jax.errors", "import jax", [
        "`TracerBoolConversionError` (a subclass of `ConcretizationTypeError`, a `TypeError`) is raised by `bool()` "
        "of a traced array whose value the trace does not know.",
        "`NonConcreteBooleanIndexError` (an `IndexError`) is raised by a boolean mask index inside `jit`; "
        "`shardlang check` reports it there too. For `TracerBoolConversionError` check warns instead that it cannot "
        "follow a branch that depends on array data.",
    ]),
    ("jax.test_util", "import jax", [
        "`check_grads` draws its random directions with `jax.random` (JAX uses NumPy's `RandomState(0)`).",
    ]),
    ("jax.tree", "import jax", ["Tuples, lists, dicts and `None` are containers; everything else is a leaf."]),
    ("jax.tree_util", "import jax", ["The `tree_*` spellings of the `jax.tree` functions, and key paths (`keystr`, "
                                     "`*_with_path`, the key entry classes).",
                                     "`Partial`'s repr is CPython 3.11's (`Partial(f, 1)`; 3.13 adds the module)."]),
    ("jax.config", "import jax", [
        "`update` knows `jax_threefry_partitionable`, `jax_num_cpu_devices`, `jax_platforms`, "
        "`jax_explain_cache_misses` (each jit trace logs JAX's explanation to stderr) and "
        "`jax_remat3` (True only: shardlang's remat is the one it selects).",
    ]),
    ("jax.experimental", "import jax", []),
    ("jax.experimental.mesh_utils", "from jax.experimental import mesh_utils", [
        "Device order follows the simulated chip's topology, as JAX's does for that chip.",
    ]),
    ("jax.experimental.multihost_utils", "from jax.experimental import multihost_utils", [
        "For a run over several processes (`mpirun -np P shardlang run`, docs/scale-out.md). "
        "`process_allgather` gives an array spread over processes whole, and stacks (or with `tiled=True` "
        "concatenates) values each process has on its own; `sync_global_devices` waits for every process.",
    ]),
    ("jax.distributed", "import jax", [
        "Under mpirun the processes already know each other: `initialize()` only checks the "
        "`num_processes` and `process_id` it is given against mpirun's (docs/scale-out.md).",
    ]),
    ("numpy", "import numpy as np", [
        "Host-side arrays are shardlang arrays that are uncommitted: they move to wherever an operation "
        "needs them. There is no float64: `np.float32` / `np.int32` are the defaults as in `jnp`.",
        "`np.load` / `np.save` read and write `.npy` files only under directories the host allows (the "
        "command line allows the working directory); elsewhere they raise `ValueError`.",
    ]),
    ("numpy.random", "import numpy as np", [
        "NumPy's legacy global generator: `seed` seeds MT19937 as NumPy does, `random`/`random_sample`/`uniform` "
        "draw NumPy's numbers; scalars only (no `size=`). Unseeded, it starts from a fixed seed.",
    ]),
    ("numpy.testing", "import numpy as np", [
        "Failures print NumPy 1.24's full report. In `shardlang check` the values are unknown: only "
        "shapes and dtypes are compared.",
    ]),
    ("functools", "import functools", []),
    ("typing", "from typing import Optional", ["Annotations only: the names exist so that annotations "
                                               "using them are accepted and ignored; `NamedTuple` is a "
                                               "class base (and a function) as in Python."]),
    ("collections", "from collections import namedtuple, defaultdict", [
        "`OrderedDict` equality is a dict's (order is not compared).",
        "Classes may derive from `defaultdict`, `OrderedDict`, `Counter` and `deque`; as pytrees, "
        "`OrderedDict` and `defaultdict` are the nodes `jax.tree_util` registers (an `OrderedDict` keeps "
        "its keys' insertion order), `Counter` is a leaf."]),
    ("contextlib", "from contextlib import contextmanager", []),
    ("dataclasses", "from dataclasses import dataclass, field", [
        "`slots=` and `match_args=` are accepted; `InitVar`, `KW_ONLY` and `make_dataclass` are not there."]),
    ("enum", "from enum import Enum, IntEnum, Flag, IntFlag, auto", [
        "Mixins (`class Mode(str, Enum)`, `IntEnum`, `StrEnum`) have members that are instances of the "
        "mixed-in type, with CPython 3.11's `str()` and `format()`; `IntFlag` is `(int, ReprEnum, Flag)`, "
        "so its members are ints whose `|` `&` `^` `~` give members. No functional "
        "`Enum('Name', ...)` or `_missing_` override; `_generate_next_value_` is the body's own or the last enum base's.",
        "`Flag` has CPython 3.11's semantics: `boundary=` STRICT (the default; `IntFlag`: KEEP), CONFORM, "
        "EJECT or KEEP, pseudo-members for combinations (`<Color.RED|GREEN: 3>`), iteration over a "
        "value's single-bit members."]),
    ("itertools", "import itertools", [
        "`groupby` materialises each group when its key is reached."]),
    ("math", "import math", ["Integers are 64-bit: `factorial`, `comb`, `perm`, `lcm` raise `OverflowError` "
                             "beyond that."]),
    ("operator", "import operator", []),
    ("string", "import string", ["The constants and `capwords`; no `Template` or `Formatter`."]),
    ("re", "import re", [
        "Built on PCRE2 (when the build found libpcre2-dev): Python's syntax and results, positions in code "
        "points; `re.error`'s messages are PCRE2's. The flags are plain ints (no `RegexFlag` repr); "
        "`finditer` finds all matches at the call; str patterns only (no bytes)."]),
    ("__future__", "from __future__ import annotations", [
        "Every feature is already the language's behaviour; the names exist so that the imports run."]),
    ("sys", "import sys", [
        "`sys.path` is the search path of imports: the script's directory (`''` in the REPL: the working "
        "directory), then `shardlang run -I DIR`, then `SHARDLANG_PATH`; a script may append to it. "
        "`sys.modules` maps each imported module's name to it (a module runs once).",
    ]),
    ("json", "import json", ["CPython's output byte for byte (`indent`, `sort_keys`, `separators`, "
                             "`ensure_ascii`, `default`) and its `JSONDecodeError` messages."]),
    ("os", "import os", ["Paths and directories only (no environment, no processes); every call that "
                         "touches a file raises `PermissionError` when the host turned file access off."]),
    ("os.path", "import os.path", ["posixpath's string rules."]),
    ("pathlib", "from pathlib import Path", ["`Path` is a `PosixPath`; text files only (UTF-8)."]),
    ("textwrap", "import textwrap", []),
    ("termcolor", "from termcolor import colored", []),
    ("builtins", "(always there)", [
        "Python's semantics for what exists: ints are 64-bit (overflow is an `OverflowError`), floats are "
        "doubles, scoping is Python's, recursion depth is limited (`RecursionError`).",
        "Classes have Python's semantics (C3 MRO, `super()`, descriptors, the dunder protocol); a class "
        "derives from `object`, other classes, the built-in exceptions, or one of `dict`, `list`, `set`, "
        "`frozenset`, `tuple`, `str`, `int` and `float` (its instances are real values of that type with "
        "the class's dunders over the type's own), and may define its own `__new__`; `bool` cannot be "
        "derived from, as in CPython. "
        "Generators (`yield`, `yield from`) and `with` over user context managers work.",
        "Not in the language: `async`, `exec`/`eval` of strings, complex numbers, arbitrary-precision "
        "integers (each a clear error naming it).",
        "`import` finds the modules on this page first, then the host's module loader (embedding), then "
        "`.py` and `.shl` files and packages on `sys.path`, as Python does (docs/modules.md).",
        "`dir(object)` lists an object's attribute names (a module's: its namespace); `dir()` without an "
        "argument is not there.",
        "IPython's `%timeit [-n N] [-r R] STMT` works at statement start: it prints the host time line "
        "and then the simulated TPU time of one run on the chosen chip.",
        "IPython's `%xmode MODE` (Plain, Context, Verbose, Minimal, Docs, in any case) sets the exception "
        "reporting mode and prints it; in Minimal mode an uncaught error is reported without the traceback's "
        "frames. The other modes report the same full traceback.",
    ]),
]


def read_listing(lister):
    done = subprocess.run([lister], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{lister} failed: {done.stderr.strip()}")
    modules = defaultdict(list)
    array_attributes = []
    primitives = []
    for line in done.stdout.splitlines():
        fields = line.split("\t")
        if fields[0] == "module":
            modules[fields[1]].append(fields[2:])
        elif fields[0] == "array":
            array_attributes.append(fields[2])
        elif fields[0] == "primitive":
            primitives.append(fields[1:])
    return modules, array_attributes, primitives


def anchor(name):
    return name.replace(".", "").replace(" ", "-")


def render(modules, array_attributes, primitives):
    documented = {name for name, _, _ in MODULES}
    missing = sorted(set(modules) - documented)
    if missing:
        raise SystemExit(f"modules without a section in {Path(__file__).name}: {', '.join(missing)}")
    out = [
        "# API reference",
        "",
        "<!-- Generated by docs/generate_api_reference.py from the interpreter's tables",
        "     (tests/docs/list_api.cpp); do not edit by hand. The test docs/api-reference",
        "     fails when this file and the generator's output differ. -->",
        "",
        "What a shardlang script can call: every member of every built-in module, read from the",
        "interpreter's module tables with its signature, the attributes of an array, and the table",
        "of primitives every array operation goes through. The names and signatures are JAX's",
        "(JAX 0.11) and NumPy's; under each module, *What differs from JAX* lists where shardlang",
        "behaves differently. The sharding rules themselves are JAX's explicit-sharding rules;",
        "see [tutorial.md](tutorial.md) and [diagnostics.md](diagnostics.md).",
        "",
        "Signatures are written as Python writes them; `=<optional>` marks a parameter that may be",
        "left out and has no default value.",
        "",
        "## Modules",
        "",
    ]
    for name, spelling, _ in MODULES:
        if name in modules:
            out.append(f"- [`{name}`](#{anchor(name)}) ({len(modules[name])} members)")
    out += ["- [Array attributes](#array-attributes)", "- [Primitives](#primitives)", ""]
    for name, spelling, differences in MODULES:
        if name not in modules:
            continue
        out += [f"## {name}", "", f"`{spelling}`", "", "| member | kind | signature |", "|---|---|---|"]
        for member, kind, detail in sorted(modules[name], key=lambda m: m[0].lower()):
            if kind == "function":
                shown = f"`{detail}`"
                if not detail.startswith(member + "("):
                    kind = f"function (same as `{detail.split('(')[0]}`)"
            elif kind in ("module", "class"):
                shown = f"`{detail}`" if detail != member else ""
            else:
                shown = f"a `{detail}`"
            out.append(f"| `{member}` | {kind} | {shown} |")
        out.append("")
        if differences:
            out += ["### What differs from JAX", ""]
            out += [f"- {text}" for text in differences]
            out.append("")
    out += [
        "## Array attributes",
        "",
        "Attributes and methods of an array value (`x.shape`, `x.sum(axis=0)`, `x.at[i].set(v)`):",
        "",
        ", ".join(f"`{a}`" for a in array_attributes),
        "",
        "Arithmetic, comparison and `@` operators and indexing and slicing (`x[:4]`, `x[:, None]`,",
        "`x[..., 0]`, NumPy's advanced indexing: `x[:, idx]`, `x[jnp.arange(n), labels]`, `x[mask]`) work as in",
        "JAX: out-of-range index arrays are clamped, a boolean mask must be concrete (outside `jit`). A Python",
        "`bool` as an index (`x[True]`) is refused, and an out-of-range integer index raises `IndexError`",
        "(JAX clamps it).",
        "",
        "## Primitives",
        "",
        "Every array operation is one primitive of `interp/ops/primitives.cpp`'s table, bound through the",
        "current trace: it runs eagerly, under `jax.jit` and in `shardlang check` with the same",
        "typing and sharding rule. *API name* is the name JAX's errors use for it; *lax name* JAX's",
        "primitive, as a jaxpr prints it and sharding errors name it; *grad* marks a primitive `jax.grad` can",
        "differentiate through (its VJP rule; JAX has none for `pmax` and `pmin`, and integer,",
        "boolean and random results get a zero cotangent).",
        "",
        "| primitive | API name | lax name | grad |",
        "|---|---|---|---|",
    ]
    for name, api_name, lax_name, grad in primitives:
        out.append(f"| `{name}` | `{api_name}` | {'`' + lax_name + '`' if lax_name != '-' else ''} | "
                   f"{'yes' if grad == 'grad' else ''} |")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lister", required=True, help="the shardlang_list_api binary")
    parser.add_argument("--check", action="store_true", help="compare with the checked-in file")
    parser.add_argument("--output", type=Path, default=DOCUMENT)
    options = parser.parse_args()
    text = render(*read_listing(options.lister))
    if not options.check:
        options.output.write_text(text, encoding="utf-8")
        return 0
    current = options.output.read_text(encoding="utf-8") if options.output.exists() else ""
    if current == text:
        print(f"{options.output.name} is up to date")
        return 0
    sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                               f"{options.output.name} (checked in)", "generated now"))
    print(f"{options.output.name} differs from the generator's output: run {Path(__file__).name} "
          f"--lister <build>/tests/shardlang_list_api")
    return 1


if __name__ == "__main__":
    sys.exit(main())
