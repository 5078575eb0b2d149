#!/usr/bin/env python3
"""The REPL with stdin not a terminal: all of stdin runs as one script, as
`python3 < file` does: no prompts, no echo of expression values, and an
uncaught error ends it with status 1 and a diagnostic located in <stdin>.

Usage: repl_stdin_test.py --bin build/shardlang
"""
import argparse
import subprocess
import sys


def run(binary, program):
    done = subprocess.run([binary], input=program.encode(), capture_output=True, timeout=60)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    binary = parser.parse_args().bin
    problems = []

    status, out, err = run(binary, "def twice(x):\n    return 2 * x\n\nx = twice(21)\nx\nprint(x)\n")
    if (status, out) != (0, "42\n"):
        problems.append(f"piped program: status {status}, stdout {out!r}, stderr {err!r}")
    if ">>>" in out + err or "..." in out + err:
        problems.append(f"piped program printed a prompt: {out + err!r}")

    status, out, err = run(binary, "print('before')\nmissing_name\nprint('after')\n")
    if status != 1 or out != "before\n" or "<stdin>:2:" not in err or "missing_name" not in err:
        problems.append(f"piped error: status {status}, stdout {out!r}, stderr {err!r}")

    for problem in problems:
        print(f"FAIL: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print("ok: REPL reads a piped program as a script")


if __name__ == "__main__":
    main()
