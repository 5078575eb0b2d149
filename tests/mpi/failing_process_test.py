#!/usr/bin/env python3
"""A job whose processes fail (docs/scale-out.md "When a process fails"):
under mpirun with 1, 2 and 4 processes, a process that raises ends every
process within 10 s, with exit status 1 and the error said once, naming the
process; a job whose every process raises says it once too, from process 0;
a device count the processes cannot share is a usage error (status 2).

Usage: failing_process_test.py --bin build/shardlang [--mpirun mpirun]
"""
import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(options, count, script, devices=8):
    command = [options.mpirun, "--oversubscribe", "--allow-run-as-root", "-np", str(count), options.bin, "run",
               "--platform", "cpu", "--devices", str(devices), str(HERE / script)]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    return done.returncode, done.stderr, time.monotonic() - started


def expect(problems, what, condition, stderr=""):
    if not condition:
        problems.append(f"{what}\n{stderr[-1500:]}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--mpirun", default="mpirun")
    options = parser.parse_args()
    problems = []
    for count in (1, 2, 4):
        status, err, took = run(options, count, "failing_process.shl")
        last = count - 1
        expect(problems, f"-np {count}: exit status {status}, expected 1", status == 1, err)
        expect(problems, f"-np {count}: took {took:.1f} s, more than 10 s", took < 10)
        expect(problems, f"-np {count}: the error is not said once",
               err.count(f"ValueError: process {last} gives up") == 1, err)
        if count > 1:
            expect(problems, f"-np {count}: the failing process is not named once",
                   err.count(f"error on process {last} of {count}") == 1, err)
        status, err, took = run(options, count, "every_process_fails.shl")
        expect(problems, f"-np {count}, every process failing: exit status {status}", status == 1, err)
        expect(problems, f"-np {count}, every process failing: took {took:.1f} s", took < 10)
        expect(problems, f"-np {count}, every process failing: the error is not said once",
               err.count("RuntimeError: every process stops here") == 1, err)
        if count > 1:
            expect(problems, f"-np {count}, every process failing: not said by process 0",
                   f"error on process 0 of {count}" in err, err)
    status, err, _ = run(options, 3, "every_process_fails.shl")
    expect(problems, f"8 devices over 3 processes: exit status {status}, expected 2", status == 2, err)
    expect(problems, "8 devices over 3 processes: the usage error is not said once",
           err.count("cannot be split evenly over 3 processes") == 1, err)
    for problem in problems:
        print("FAIL", problem)
    print("ok" if not problems else f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
