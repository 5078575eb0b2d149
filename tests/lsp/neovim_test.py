#!/usr/bin/env python3
"""Neovim (Debian's `neovim`), headless, with its built-in LSP client drives
`shardlang lsp` as a user's editor does (neovim_client.lua): the ambiguous
contraction's diagnostic with its related information and hint, the hover
text at a position, the inlay hints, the code actions cheapest first, and the
diagnostic gone once the first is applied. Exits 77 (skipped) when nvim is
not installed.

Usage: neovim_test.py --bin build/shardlang [--nvim nvim]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_session_test import AMBIGUOUS, hint_choices  # noqa: E402

failures = []


def expect(condition, what, detail=""):
    if not condition:
        failures.append(f"{what}\n      {detail}" if detail else what)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--nvim", default="nvim")
    arguments = parser.parse_args()
    nvim = shutil.which(arguments.nvim)
    if not nvim:
        print("skipped: nvim is not installed (Debian package neovim)")
        sys.exit(77)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "neovim_client.lua")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.shl")
        with open(path, "w", encoding="utf-8") as f:
            f.write(AMBIGUOUS)
        report_path = os.path.join(folder, "report.json")
        environment = dict(os.environ, SHARDLANG_BIN=os.path.abspath(arguments.bin), SHARDLANG_FILE=path,
                           SHARDLANG_REPORT=report_path, XDG_STATE_HOME=folder, XDG_DATA_HOME=folder,
                           XDG_CONFIG_HOME=folder, XDG_CACHE_HOME=folder)
        done = subprocess.run([nvim, "--headless", "--clean", "-n", "-i", "NONE", "-c", f"luafile {script}"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              env=environment, timeout=120, cwd=folder)
        output = done.stdout.decode(errors="replace")
        if not os.path.exists(report_path):
            print(f"FAIL: nvim wrote no report (status {done.returncode})\n{output}", file=sys.stderr)
            sys.exit(1)
        with open(report_path, encoding="utf-8") as f:
            report = json.load(f)
    expect(done.returncode == 0 and not report.get("error"), "the Lua client ran to the end",
           f"status {done.returncode}, {report.get('error')}\n{output}")

    diagnostics = report.get("diagnostics", [])
    expect(len(diagnostics) == 1, "Neovim shows one diagnostic", diagnostics)
    if diagnostics:
        d = diagnostics[0]
        expect((d["lnum"], d["col"], d["end_col"], d["severity"]) == (7, 0, 48, 1),
               "on the einsum statement of line 8, an error", d)
        expect(d.get("code") == "sharding/ambiguous-contraction", "its code", d.get("code"))
        expect("Contracting dimensions are sharded and it is ambiguous" in d["message"]
               and "hint: choose the output sharding" in d["message"], "JAX's message and the hint", d["message"])
        related = d.get("related") or []
        expect(any(r["message"] == "`In` got its sharding here" for r in related),
               "related information: where `In` got its sharding", related)

    hover = (report.get("hover") or {}).get("contents", {}).get("value", "")
    expect("In: bf16[8@X,2048@Y]" in hover and "per device: bf16[4,512], 4.0 KiB" in hover
           and "estimated on v5e" in hover, "the hover text at `In` on line 8", hover)

    hints = [h["label"] for h in report.get("inlay_hints") or []]
    # `out` holds check mode's best guess after the error: replicated.
    expect(hints == [": bf16[8@X,2048@Y]", ": bf16[2048@Y,8192]", ": bf16[8,8192]"],
           "an inlay hint after each array assignment", hints)

    titles = [a["title"] for a in report.get("code_actions") or []]
    ranked = hint_choices(diagnostics[0]["message"]) if diagnostics else []
    expect(len(ranked) == 3 and len(titles) == 3
           and all(title.startswith(choice + ": ") for title, choice in zip(titles, ranked)),
           "the code actions: each legal out_sharding, in the hint's order (cheapest first)", f"{titles} {ranked}")
    cheapest = ranked[0] if ranked else "?"
    expect(report.get("fixed_line") == f"out = jnp.einsum('bd,df->bf', jnp.square(In), W, {cheapest})",
           "the first applied in the buffer", report.get("fixed_line"))
    expect(report.get("cleared") is True, "the diagnostic goes once the fix is applied", report)
    expect(report.get("stopped") is True, "the server stops when the client does", report)

    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    if failures:
        sys.exit(1)
    print("ok: neovim")


if __name__ == "__main__":
    main()
