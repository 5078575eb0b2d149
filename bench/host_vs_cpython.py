#!/usr/bin/env python3
"""The host language's speed against CPython's: each program of bench/host/
(recursive fib, a 10^6-iteration arithmetic loop, method calls on objects,
dict and list work, a generator pipeline) is run by shardlang and by python3,
which must print the same thing. A program's time is the best wall time of
several runs less the best time of an empty program on the same interpreter
(CPython's start, with its site packages, is a large part of a short run).
Prints each program's two times and their ratio, shardlang / CPython.
Target: every ratio at most 1.0.

Usage: bench/host_vs_cpython.py [path/to/shardlang] [--runs N] [--python python3]
Exit status 0 when the target is met.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

from shardlang_binary import shardlang_binary

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
programs = ["fib", "arithmetic_loop", "method_calls", "dicts_and_lists", "generator_pipeline"]


def best_time(command, runs):
    """The best wall time of `runs` runs of command, and its output."""
    best = None
    output = None
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - start
        if result.returncode != 0:
            sys.exit(f"{' '.join(command)} failed:\n{result.stdout}{result.stderr}")
        best = elapsed if best is None else min(best, elapsed)
        output = result.stdout
    return best, output


# What the interpreter is, for the report: builds of one CPython version
# differ (here Debian's /usr/bin/python3 runs these programs 5-20% faster
# than pyenv's plain build), so the figures name the one measured.
DESCRIBE = "import sys; print(sys.executable); print(sys.version.split()[0])"


def interpreter_itself(python):
    """The executable `python` runs, and a line that describes it. Not its
    launcher: one in front of it (pyenv's shim is a shell script) would add
    its own start-up, tens of milliseconds that vary from run to run, to
    every time measured."""
    result = subprocess.run([python, "-c", DESCRIBE], capture_output=True, text=True, check=True)
    executable, version = result.stdout.splitlines()
    return executable, f"{executable} (Python {version})"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python", default="python3")
    arguments = parser.parse_args()
    binary = shardlang_binary(arguments.binary)
    cpython, cpython_description = interpreter_itself(arguments.python)
    interpreters = {"shardlang": [binary], "cpython": [cpython]}
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as empty:
        empty.write("pass\n")
    try:
        start = {name: best_time(command + [empty.name], arguments.runs)[0]
                 for name, command in interpreters.items()}
    finally:
        os.unlink(empty.name)
    print(f"CPython: {cpython_description}")
    print(f"load average {os.getloadavg()[0]:.2f}; start-up: shardlang {start['shardlang'] * 1000:.0f} ms, "
          f"CPython {start['cpython'] * 1000:.0f} ms (subtracted below)")
    print(f"{'program':<20} {'shardlang':>10} {'CPython':>10} {'ratio':>7}")
    worst = 0.0
    for program in programs:
        path = os.path.join(root, "bench", "host", program + ".py")
        times = {}
        outputs = {}
        for name, command in interpreters.items():
            elapsed, outputs[name] = best_time(command + [path], arguments.runs)
            times[name] = max(elapsed - start[name], 1e-6)
        if outputs["shardlang"] != outputs["cpython"]:
            sys.exit(f"{program}: the outputs differ:\nshardlang: {outputs['shardlang']}cpython:   {outputs['cpython']}")
        ratio = times["shardlang"] / times["cpython"]
        worst = max(worst, ratio)
        print(f"{program:<20} {times['shardlang']:>9.3f}s {times['cpython']:>9.3f}s {ratio:>7.2f}")
    print(f"worst ratio {worst:.2f} (target <= 1.0): {'ok' if worst <= 1.0 else 'SLOW'}")
    return 0 if worst <= 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
