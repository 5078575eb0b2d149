#!/usr/bin/env python3
"""MPI equivalence tests (docs/scale-out.md): a script run by
`mpirun -np P shardlang run` prints, on every process, byte for byte what the
one-process run prints, and ends with the same exit status.

Usage: run_mpi_equivalence.py --bin build/shardlang [--mpirun mpirun]
                              [--np 2 4] [--part K/N] [--timeout S] PATH...

PATH is a folder (every .shl under it) or a .shl file. A script's flags come
from its `# args:` line (golden and conformance scripts) or its
`# test-run: FLAGS [-- SCRIPT_ARGS]` line (examples); scripts are run from the
checkout's root, as the other runners do. `--part K/N` runs the K-th of N
equal parts of the scripts (so that ctest can run the parts side by side).

The one exception to byte equality: `%timeit`'s host time line
("5 loops, best of 5: 9.69 ms per loop") differs from run to run anyway; in
both outputs its time is replaced by `[host time]` before comparing.

Prints `ok`/`FAIL` per script and `N passed, M failed`; exits 1 on a failure.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ARGS_LINE = re.compile(r"#\s*args:\s?(.*)$")
TEST_RUN_LINE = re.compile(r"^#\s*test-run:\s*(.*)$")
ROOT = Path(__file__).resolve().parent.parent.parent
HOST_TIME = re.compile(rb"^(\d+ loops?, best of \d+: ).*( per loop)$", re.MULTILINE)


def without_host_times(output):
    return HOST_TIME.sub(rb"\1[host time]\2", output)


def command_of(script):
    """(flags, script arguments) for `shardlang run`."""
    flags, arguments = [], []
    for line in script.read_text(encoding="utf-8").splitlines():
        run = TEST_RUN_LINE.match(line)
        if run:
            text = run.group(1)
            if text.strip() == "--":
                return [], []
            before, _, after = text.partition(" -- ")
            return shlex.split(before), shlex.split(after)
        given = ARGS_LINE.search(line)
        if given:
            flags += shlex.split(given.group(1))
    return flags, arguments


def run(command, timeout):
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return None, b"", f"timed out after {timeout:g} s".encode()
    return done.returncode, done.stdout, done.stderr


def first_difference(want, got):
    want_lines, got_lines = want.decode("utf-8", "replace").splitlines(), got.decode("utf-8", "replace").splitlines()
    for number, (a, b) in enumerate(zip(want_lines, got_lines), 1):
        if a != b:
            return f"line {number}: expected {a!r}, got {b!r}"
    if len(want_lines) != len(got_lines):
        return f"{len(want_lines)} lines expected, got {len(got_lines)}"
    return "bytes differ (line endings or a final newline)"


def check(binary, mpirun, script, process_counts, timeout):
    flags, arguments = command_of(script)
    try:
        shown = script.resolve().relative_to(ROOT)
    except ValueError:
        shown = script.resolve()
    program = [binary, "run", *flags, str(shown), *arguments]
    status, want, err = run(program, timeout)
    if status is None:
        return [f"one process: {err.decode()}"]
    want = without_host_times(want)
    problems = []
    for count in process_counts:
        with tempfile.TemporaryDirectory() as outputs:
            got_status, _, got_err = run([mpirun, "--oversubscribe", "--allow-run-as-root", "-np", str(count),
                                          "--output-filename", outputs, *program], timeout)
            if got_status is None:
                problems.append(f"-np {count}: {got_err.decode()}")
                continue
            if got_status != status:
                problems.append(f"-np {count}: exit status {got_status}, one process gave {status}; "
                                f"stderr: {got_err.decode('utf-8', 'replace').strip()[-300:]}")
            for rank in range(count):
                path = Path(outputs) / "1" / f"rank.{rank}" / "stdout"
                got = without_host_times(path.read_bytes() if path.exists() else b"")
                if got != want:
                    problems.append(f"-np {count} process {rank}: {first_difference(want, got)}")
                    break
    return problems


def scripts_under(paths):
    for path in paths:
        path = Path(path)
        if path.is_dir():
            yield from sorted(path.rglob("*.shl"))
        else:
            yield path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--mpirun", default="mpirun")
    parser.add_argument("--np", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--part", default="1/1")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("paths", nargs="+")
    options = parser.parse_args()
    # Sanitizer builds run several times slower: .ci/sanitize scales every timeout.
    options.timeout *= float(os.environ.get("SHARDLANG_TEST_TIMEOUT_SCALE", "1"))
    binary = str(Path(options.bin).resolve())
    passed = failed = 0
    part, parts = (int(n) for n in options.part.split("/"))
    scripts = list(scripts_under(options.paths))
    for script in scripts[(part - 1) * len(scripts) // parts:part * len(scripts) // parts]:
        started = time.monotonic()
        problems = check(binary, options.mpirun, script, options.np, options.timeout)
        took = time.monotonic() - started
        if problems:
            failed += 1
            print(f"FAIL {script} ({took:.1f} s)")
            for problem in problems:
                print(f"  {problem}")
        else:
            passed += 1
            print(f"ok   {script} ({took:.1f} s)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
