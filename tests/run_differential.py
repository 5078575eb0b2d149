#!/usr/bin/env python3
"""Differential host-language tests: every .py script under the given folders
(recursively) is run by shardlang and by CPython (`python3`, or --python), and
the two must behave alike:

  - the same stdout, byte for byte;
  - the same exit status class (0, or an uncaught exception);
  - for an uncaught exception, CPython's exception lines at the end of its
    traceback (`ValueError: bad`, and the other lines of a message of
    several) equal the message of shardlang's diagnostic (`file:line:col:
    error: ValueError: bad` and the lines before its source excerpt), and
    both point at the same line.

The scripts carry no expectations of their own: CPython is the expectation
(language.md: where this page and CPython disagree on host semantics, CPython
is right). Scripts must not depend on set order of strings or on timing.

A folder holding `main.py` is one multi-file case (tests/golden/modules/):
`main.py` is run from the folder by both, the folder's other files are the
modules it imports. For an uncaught exception the whole traceback must agree
too: the same frames (file relative to the folder, line, function), outermost
first, CPython's own `<frozen importlib...>` frames left out; the folder's
absolute path is removed from both outputs (CPython names files absolutely).

Usage: run_differential.py --bin build/shardlang [--python python3] PATH...

Prints `ok`/`FAIL` per script and `N passed, M failed`; exits 1 on any failure.
"""
import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

# shardlang: "script.py:12:5: error: ValueError: bad"
SHARDLANG_ERROR = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<column>\d+): error: (?P<message>.*)$")
# CPython: '  File "/path/script.py", line 12, in <module>'
CPYTHON_FRAME = re.compile(r'^\s*File "(?P<file>[^"]*)", line (?P<line>\d+)')
# What follows the message of shardlang's diagnostic: the source excerpt
# ("   12 | code", "      | ^^^"), a note or the hint.
DIAGNOSTIC_TAIL = re.compile(r"^(\s*\d*\s\||(.*: )?note: |hint: )")
# A traceback frame of either: file, line, function.
FRAME = re.compile(r'^\s*File "(?P<file>[^"]*)", line (?P<line>\d+)(?:, in (?P<function>.*))?$')


def execute(command, cwd, timeout, case=False):
    environment = dict(os.environ, PYTHONHASHSEED="0", PYTHONIOENCODING="utf-8", PYTHONDONTWRITEBYTECODE="1")
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, env=environment)
    except subprocess.TimeoutExpired:
        return None, b"", b"timed out after %d s" % timeout
    if not case:
        return done.returncode, done.stdout, done.stderr
    prefix = (str(Path(cwd).resolve()) + "/").encode()
    return done.returncode, done.stdout.replace(prefix, b""), done.stderr.replace(prefix, b"")


def traceback_frames(stderr):
    """The frames of the last traceback in stderr: [(file, line, function)], outermost first."""
    lines = stderr.decode("utf-8", "replace").splitlines()
    starts = [i for i, text in enumerate(lines) if text.startswith("Traceback (most recent call last):")]
    frames = []
    for text in lines[starts[-1] + 1:] if starts else []:
        match = FRAME.match(text)
        if match and not match.group("file").startswith("<frozen "):
            frames.append((match.group("file"), int(match.group("line")), match.group("function")))
    return frames


def cpython_error(script, stderr, case=False):
    """(line, exception) of CPython's uncaught exception, or None: the lines
    after the last frame and its source lines (`ValueError: bad`, and the rest
    of a message of several lines); in a multi-file case the line is (file,
    line) of the innermost frame."""
    lines = stderr.decode("utf-8", "replace").rstrip("\n").splitlines()
    if not lines:
        return None
    line = None
    exception_start = len(lines) - 1
    for number, text in enumerate(lines):
        match = CPYTHON_FRAME.match(text)
        if match:
            exception_start = number + 1
            while exception_start < len(lines) and lines[exception_start].startswith("  "):
                exception_start += 1  # the frame's source line, carets, "[Previous line repeated ...]"
        if match and case and not match.group("file").startswith("<frozen "):
            line = (match.group("file"), int(match.group("line")))
        elif match and not case and Path(match.group("file")).name == script.name:
            line = int(match.group("line"))
    return line, "\n".join(lines[exception_start:]).strip()


def shardlang_error(script, stderr, case=False):
    """(line, error message) of shardlang's uncaught error, or None: the
    diagnostic's message, with the lines of a message of several lines; in a
    multi-file case the line is (file, line), in whichever file it is."""
    lines = stderr.decode("utf-8", "replace").splitlines()
    for number, text in enumerate(lines):
        match = SHARDLANG_ERROR.match(text)
        if not match or not (case or Path(match.group("file")).name == script.name):
            continue
        message = [match.group("message")]
        for more in lines[number + 1:]:
            if DIAGNOSTIC_TAIL.match(more):
                break
            message.append(more)
        where = (match.group("file"), int(match.group("line"))) if case else int(match.group("line"))
        return where, "\n".join(message).strip()
    return None


def compare(binary, python, script, timeout, case=False):
    """The differences between the two runs, as lines; empty when alike."""
    cwd = script.parent
    ours = execute([binary, "run", script.name], cwd, timeout, case)
    theirs = execute([python, "-X", "utf8", script.name], cwd, timeout, case)
    problems = []
    if ours[0] is None or theirs[0] is None:
        return [("shardlang" if ours[0] is None else "python3") + " timed out"]
    if ours[1] != theirs[1]:
        ours_lines = ours[1].decode("utf-8", "replace").splitlines()
        theirs_lines = theirs[1].decode("utf-8", "replace").splitlines()
        for number, (a, b) in enumerate(zip(ours_lines + [None] * len(theirs_lines),
                                            theirs_lines + [None] * len(ours_lines)), 1):
            if a != b:
                problems.append(f"stdout line {number}: shardlang {a!r}, python3 {b!r}")
                break
    if (ours[0] == 0) != (theirs[0] == 0):
        problems.append(f"exit status: shardlang {ours[0]}, python3 {theirs[0]}")
        problems.append("shardlang stderr: " + ours[2].decode("utf-8", "replace").strip()[-600:])
        problems.append("python3 stderr: " + theirs[2].decode("utf-8", "replace").strip()[-600:])
    elif theirs[0] != 0:
        expected = cpython_error(script, theirs[2], case)
        actual = shardlang_error(script, ours[2], case)
        if actual is None:
            problems.append("shardlang's stderr has no located error: "
                            + ours[2].decode("utf-8", "replace").strip()[-600:])
        elif expected is None or expected[1] != actual[1]:
            problems.append(f"error: shardlang {actual[1]!r}, python3 {expected and expected[1]!r}")
        elif expected[0] is not None and expected[0] != actual[0]:
            problems.append(f"error line: shardlang {actual[0]}, python3 {expected[0]}")
        if case and traceback_frames(ours[2]) != traceback_frames(theirs[2]):
            problems.append(f"traceback: shardlang {traceback_frames(ours[2])}, python3 {traceback_frames(theirs[2])}")
    return problems


def scripts_under(path):
    """(script, is a case's main) for each .py script under path. A case's
    other files are its modules, not scripts; a case whose main is main.shl
    uses shardlang's own modules (jax) and is run by run_golden.py only."""
    if not path.is_dir():
        return [(path, False)]
    cases = sorted({main.parent for name in ("main.py", "main.shl") for main in path.rglob(name)})
    def in_case(file):
        return any(case == file.parent or case in file.parents for case in cases)
    found = [(file, False) for file in path.rglob("*.py") if not in_case(file)]
    found += [(case / "main.py", True) for case in cases if (case / "main.py").exists()]
    return sorted(found)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the shardlang binary")
    parser.add_argument("--python", default="python3", help="the CPython to compare with")
    parser.add_argument("--timeout", type=int, default=60)
    parser.add_argument("--quiet", action="store_true", help="print failures only")
    parser.add_argument("paths", nargs="+", type=Path)
    arguments = parser.parse_args()
    # Sanitizer builds run several times slower: .ci/sanitize scales every timeout.
    arguments.timeout *= float(os.environ.get("SHARDLANG_TEST_TIMEOUT_SCALE", "1"))
    binary = str(Path(arguments.bin).resolve())

    scripts = []
    for path in arguments.paths:
        scripts.extend(scripts_under(path))
    if not scripts:
        print("no scripts found")
        return 1
    failed = 0
    for script, case in scripts:
        problems = compare(binary, arguments.python, script.resolve(), arguments.timeout, case)
        if problems:
            failed += 1
            print(f"FAIL {script}")
            for problem in problems:
                print("    " + problem)
        elif not arguments.quiet:
            print(f"ok   {script}")
    print(f"{len(scripts) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
