#!/usr/bin/env python3
"""Notebook test: executes every notebook in examples/notebooks/ headlessly
(nbclient) with the shardlang kernel and compares each code cell's outputs
with the outputs stored in the notebook. Consecutive stream outputs are
compared joined (how they are split depends on timing), and %timeit's host
time line is compared by its shape only; everything else must be equal.
Every cell that calls jax.debug.visualize_array_sharding must show HTML.

Usage: notebooks_test.py --jupyter-path BUILD/share/jupyter [--update] [NOTEBOOK...]
--update stores the outputs of this run in the notebooks.
"""
import argparse
import copy
import os
import re
import sys
from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "examples" / "notebooks"
# "5 loops, best of 5: 100 µs per loop": the host's time, which varies.
HOST_TIME = re.compile(r"^(\d+ loops?, best of \d+: )\S+ \S+( per loop)$", re.MULTILINE)


def normalized(outputs):
    out = []
    for output in outputs:
        output = dict(output)
        if output["output_type"] == "stream":
            text = HOST_TIME.sub(r"\1[time]\2", output["text"])
            if out and out[-1]["output_type"] == "stream" and out[-1]["name"] == output["name"]:
                out[-1]["text"] += text
                continue
            output = {"output_type": "stream", "name": output["name"], "text": text}
        elif output["output_type"] in ("display_data", "execute_result"):
            output = {key: output[key] for key in ("output_type", "data", "execution_count") if key in output}
        elif output["output_type"] == "error":
            output = {key: output[key] for key in ("output_type", "ename", "evalue", "traceback")}
        out.append(output)
    return out


def run(path, update):
    stored = nbformat.read(path, as_version=4)
    notebook = copy.deepcopy(stored)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    client = nbclient.NotebookClient(notebook, kernel_name="shardlang", timeout=300,
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    if update:
        nbformat.write(notebook, path)
        return [f"{path.name}: outputs stored"]
    problems = []
    code_cells = [(s, n) for s, n in zip(stored.cells, notebook.cells) if s.cell_type == "code"]
    for index, (want, got) in enumerate(code_cells, 1):
        if normalized(want.outputs) != normalized(got.outputs):
            problems.append(f"{path.name}: code cell {index} ({want.source.splitlines()[0]!r}): outputs differ\n"
                            f"  stored: {normalized(want.outputs)!r}\n  now:    {normalized(got.outputs)!r}")
        if "visualize_array_sharding(" in got.source and "def " not in got.source:
            if not any("text/html" in output.get("data", {}) for output in got.outputs):
                problems.append(f"{path.name}: code cell {index} draws a sharding but shows no HTML")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jupyter-path", required=True, help="the folder holding kernels/shardlang/kernel.json")
    parser.add_argument("--update", action="store_true")
    parser.add_argument("notebooks", nargs="*", type=Path)
    args = parser.parse_args()
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [args.jupyter_path, os.environ.get("JUPYTER_PATH")]))
    notebooks = args.notebooks or sorted(NOTEBOOKS.glob("*.ipynb"))
    if not notebooks:
        sys.exit(f"FAIL: no notebooks in {NOTEBOOKS}")
    problems = []
    for path in notebooks:
        found = run(path, args.update)
        problems += found
        print(f"{'FAIL' if found and not args.update else 'ok'}: {path.name}")
    for problem in problems:
        print(problem)
    passed = len(notebooks) - len({p.split(":")[0] for p in problems if not args.update})
    print(f"{passed} passed, {len(notebooks) - passed} failed")
    sys.exit(1 if problems and not args.update else 0)


if __name__ == "__main__":
    main()
