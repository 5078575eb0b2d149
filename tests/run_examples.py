#!/usr/bin/env python3
"""Example tests: run each program in examples/ the way its header says and
compare what it prints with tests/examples/<name>.out (a program in several
files, examples/NAME/main.py, is run from examples/ as NAME/main.py).

Usage: run_examples.py --bin build/shardlang [--update] EXAMPLE.shl...

Every example names its quick test run in one header comment:

  # test-run: FLAGS [-- SCRIPT_ARGS]     `shardlang run FLAGS EXAMPLE SCRIPT_ARGS`
  # test-check: FLAGS                    `shardlang check FLAGS EXAMPLE`

An example without one fails: every example runs in the test suite. The run
must exit 0 and its stdout must equal the .out file line by line, except
that `[...]` in an expected line matches any text (for host timings).

--update writes the .out files from what the runs printed, keeping each old
expected line that still matches, so `[...]` placeholders survive.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

TEST_LINE = re.compile(r"^#\s*test-(run|check):\s*(.*)$")
WILDCARD = "[...]"
EXPECTED_DIR = Path(__file__).resolve().parent / "examples"


def command_for(binary, example):
    for line in example.read_text(encoding="utf-8").splitlines():
        match = TEST_LINE.match(line)
        if match:
            mode, rest = match.groups()
            flags, _, script_args = rest.partition(" -- ")
            if rest.strip() == "--":
                flags, script_args = "", ""
            # Relative to the checkout, so what the example prints of its own
            # path does not depend on where the checkout is.
            program = example.relative_to(example.parent.parent)
            return [binary, mode, *shlex.split(flags), str(program), *shlex.split(script_args)]
    return None


def expected_name(example):
    """hello for examples/hello.shl; llm for a package's examples/llm/main.py."""
    return example.parent.name if example.stem == "main" else example.stem


def line_matches(expected, actual):
    if WILDCARD not in expected:
        return expected.rstrip() == actual.rstrip()
    pattern = ".*".join(re.escape(part) for part in expected.rstrip().split(WILDCARD))
    return re.fullmatch(pattern, actual.rstrip()) is not None


def check(binary, example, update, timeout):
    command = command_for(binary, example)
    if command is None:
        return "no '# test-run:' or '# test-check:' header line"
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                                cwd=example.parent.parent)
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout} s: {shlex.join(command)}"
    if result.returncode != 0:
        return f"exit status {result.returncode}: {shlex.join(command)}\n{result.stderr}"
    actual = result.stdout.splitlines()
    expected_file = EXPECTED_DIR / (expected_name(example) + ".out")
    expected = expected_file.read_text(encoding="utf-8").splitlines() if expected_file.exists() else []
    if len(expected) == len(actual) and all(map(line_matches, expected, actual)):
        return None
    if update:
        expected_file.parent.mkdir(parents=True, exist_ok=True)
        lines = [old if old is not None and line_matches(old, new) else new
                 for old, new in zip(expected + [None] * len(actual), actual)]
        expected_file.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return f"updated {expected_file}"
    for number, (want, got) in enumerate(zip(expected + [None] * len(actual), actual + [None] * len(expected)), 1):
        if want is None or got is None or not line_matches(want, got):
            return (f"{expected_file.name}:{number}: output differs ({shlex.join(command)})\n"
                    f"  expected: {want!r}\n  actual:   {got!r}")
    return "output differs"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the shardlang binary")
    parser.add_argument("--update", action="store_true", help="rewrite the .out files")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("examples", nargs="+", type=Path)
    arguments = parser.parse_args()
    # Sanitizer builds run several times slower: .ci/sanitize scales every timeout.
    arguments.timeout *= float(os.environ.get("SHARDLANG_TEST_TIMEOUT_SCALE", "1"))
    failures = 0
    for example in arguments.examples:
        problem = check(str(Path(arguments.bin).resolve()), example.resolve(), arguments.update, arguments.timeout)
        if problem is None:
            print(f"ok   {example}")
        else:
            failures += not problem.startswith("updated ")
            print(f"{'FAIL' if not problem.startswith('updated ') else 'upd '} {example}: {problem}")
    print(f"{len(arguments.examples) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
