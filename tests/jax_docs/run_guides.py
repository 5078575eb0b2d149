#!/usr/bin/env python3
"""Runs the JAX guides kept under tests/jax_docs/ as a notebook runs them.

Usage: run_guides.py --bin build/shardlang [--update] [GUIDE.shl...]
       (default: every .shl beside this file)

Each script is one JAX 0.11 guide: every code cell in order, the guide's code
unchanged, each opening with a marker comment:

  # %% [N]                            a cell
  # %% [N] raises-exception TypeError  the guide tags it raises-exception: it
                                       must raise that exception; the cells
                                       after it still run, as in a notebook
  # %% [N] output-varies: REASON      a cell whose output is not compared
                                       (timings); it must run
  # %% [N] skip: REASON               a cell that needs what the language
                                       leaves out (not run)

`# expect:` lines after a cell are its output, line by line: what the guide
states, and what the cell prints otherwise. The runner writes the notebook
as one script (a raising cell wrapped to report its exception's type, a line
marking the end of each cell), runs it, and compares each cell's output.
--update rewrites the `# expect:` lines from what the cells print.
"""
import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MARKER = re.compile(r"^# %% \[(\d+)\](?: raises-exception (\w+)| output-varies: (.*)| skip: (.*))?$")
END = "@@ end of cell"


def parse(text):
    """(header lines, cells): each cell a dict of its marker, kind and lines."""
    header, cells = [], []
    for line in text.split("\n"):
        found = MARKER.match(line)
        if found:
            cells.append({"marker": line, "raises": found.group(2), "varies": found.group(3) is not None,
                          "skip": found.group(4) is not None, "code": [], "expect": []})
        elif not cells:
            header.append(line)
        elif line.startswith("# expect:"):
            cells[-1]["expect"].append(line[len("# expect:"):].removeprefix(" "))
        else:
            cells[-1]["code"].append(line)
    return header, cells


def notebook_script(header, cells):
    out = list(header)
    for cell in cells:
        if cell["skip"]:
            continue
        code = list(cell["code"])
        while code and not code[-1].strip():
            code.pop()
        if cell["raises"]:
            out.append("try:")
            out.extend("  " + line for line in code if line.strip())
            out.append("except BaseException as _cell_error:")
            out.append("  print('raised ' + type(_cell_error).__name__)")
            out.append("else:")
            out.append("  print('did not raise')")
        else:
            out.extend(code)
        out.append(f"print({END!r})")
    return "\n".join(out) + "\n"


def run_guide(binary, guide, update):
    header, cells = parse(guide.read_text())
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / guide.name
        script.write_text(notebook_script(header, cells))
        flags = re.search(r"^# args: (.*)$", "\n".join(header), re.MULTILINE)
        command = [binary, "run", *(flags.group(1).split() if flags else []), str(script)]
        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    outputs = result.stdout.split(END + "\n")
    failures = []
    ran = [cell for cell in cells if not cell["skip"]]
    for index, cell in enumerate(ran):
        if index >= len(outputs) - 1:
            failures.append(f"{cell['marker']}: did not finish; stderr: {result.stderr[-2000:]}")
            break
        printed = outputs[index].rstrip("\n").split("\n") if outputs[index].strip() else []
        if cell["raises"]:
            wanted = "raised " + cell["raises"]
            if not printed or printed[-1] != wanted:
                failures.append(f"{cell['marker']}: expected '{wanted}', got {printed[-1:] or 'nothing'}")
            printed = printed[:-1]
        if update and not cell["varies"]:
            cell["expect"] = printed
        elif not cell["varies"] and [l.rstrip() for l in printed] != [l.rstrip() for l in cell["expect"]]:
            failures.append(f"{cell['marker']}: output differs\n  expected: {cell['expect']}\n  got:      {printed}")
    if result.returncode != 0 and not failures:
        failures.append(f"exit status {result.returncode}; stderr: {result.stderr[-2000:]}")
    if update:
        lines = list(header)
        for cell in cells:
            lines.append(cell["marker"])
            code = list(cell["code"])
            while code and not code[-1].strip():
                code.pop()
            lines.extend(code)
            lines.extend(("# expect: " + line).rstrip() for line in cell["expect"])
            lines.append("")
        guide.write_text("\n".join(lines).rstrip("\n") + "\n")
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--update", action="store_true")
    parser.add_argument("guides", nargs="*")
    args = parser.parse_args()
    guides = [Path(g) for g in args.guides] or sorted(HERE.glob("*.shl"))
    failed = 0
    for guide in guides:
        failures = run_guide(args.bin, guide, args.update)
        print(("FAIL " if failures else "ok   ") + guide.name)
        for failure in failures:
            print("     " + failure)
        failed += bool(failures)
    print(f"{len(guides) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
