#!/usr/bin/env python3
"""host_semantics.shl under mpirun with 1, 2 and 4 processes: each process
prints what multi-controller JAX would (docs/scale-out.md).

Usage: host_semantics_test.py --bin build/shardlang [--mpirun mpirun]
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def expected(count, index):
    local = list(range(index * 8 // count, (index + 1) * 8 // count))
    lines = [f"{count} {index}", f"{local} {8 // count} 8", "CpuDevice(id=0)", str(count == 1)]
    for device in local:
        lines.append(f"{device} (slice({2 * device}, {2 * device + 2}, None),) 0 [{2 * device} {2 * device + 1}]")
    lines.append(str([(device, device) for device in local]))
    # Whole when spread over processes; held by one process, stacked as a
    # value each process has.
    whole = "[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15]"
    lines.append(whole if count > 1 else f"[{whole}]")
    lines.append(f"({count}, 2) {11 * count * (count - 1) // 2}")
    lines.append(f"({count},)")
    lines.append(f"({2 * count},)")
    if index == count - 1:
        lines.append(f"last [0 1 2 3] [{0} {index} {2 * index}]")
    lines.append("[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15]")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--mpirun", default="mpirun")
    options = parser.parse_args()
    failures = 0
    for count in (1, 2, 4):
        with tempfile.TemporaryDirectory() as outputs:
            done = subprocess.run([options.mpirun, "--oversubscribe", "--allow-run-as-root", "-np", str(count),
                                   "--output-filename", outputs, options.bin, "run", "--platform", "cpu",
                                   "--devices", "8", str(HERE / "host_semantics.shl")],
                                  capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
            if done.returncode != 0:
                print(f"FAIL -np {count}: exit status {done.returncode}\n{done.stderr[-2000:]}")
                failures += 1
                continue
            for index in range(count):
                got = (Path(outputs) / "1" / f"rank.{index}" / "stdout").read_text()
                want = expected(count, index)
                if got != want:
                    print(f"FAIL -np {count} process {index}:\n--- expected\n{want}--- got\n{got}")
                    failures += 1
                else:
                    print(f"ok   -np {count} process {index}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
