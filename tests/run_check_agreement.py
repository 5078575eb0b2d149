#!/usr/bin/env python3
"""`check` agrees with `run`: every script is run both ways, and every error
`run` ends with must be reported by `check --format json` at the same line
with the same message; `check` itself must never fail internally (a crash,
an exit status other than 0 or 1, a diagnostic without a location, or an
"internal error").

Usage: run_check_agreement.py --bin build/shardlang [--jobs N] [--expected FILE] PATH...

PATH is a folder (every script under it, as tests/run_golden.py finds them:
.shl files and the main file of each multi-file case) or a script. A script's
`# args:` flags are given to both commands. Scripts are run --jobs at a time.

--expected names a file of known disagreements, one per line as
`PATH: REASON` (PATH relative to the repository or to ../shared); each must
still disagree (a listed script that now agrees is reported, so the list
only shrinks). Prints `FAIL` per disagreeing script and `N agree, M disagree`;
exits 1 on any unlisted disagreement.
"""
import argparse
import json
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_golden import case_prefix, command_for, execute, read_expectations, script_files, timeout_scale  # noqa: E402

# The last located error of run's stderr: FILE:LINE:COL: error: MESSAGE
RUN_ERROR = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?:\d+:)?\s*error:\s*(?P<message>.*)$", re.MULTILINE)


def run_error(binary, path, args, timeout):
    """(status, (file, line, message) of the error run ended with, or None)."""
    status, _, err = execute(*command_for(binary, "run", path, *args), timeout)
    if status != 1:
        return status, None
    found = list(RUN_ERROR.finditer(err))
    if not found:
        return status, None
    last = found[-1]
    return status, (last.group("file"), int(last.group("line")), last.group("message").strip())


def check_diagnostics(binary, path, args, timeout):
    """(problems, diagnostics) of `check --format json`."""
    command, cwd = command_for(binary, "check", path, "--format", "json", *args)
    status, out, err = execute(command, cwd, timeout)
    if status is None:
        return [f"check: {err}"], []
    problems, diagnostics = [], []
    if status not in (0, 1):
        problems.append(f"check: exit status {status}; stderr: {err.strip()[-300:]}")
    # Diagnostics are the JSON lines (--profile adds its table as text).
    for raw in (line.strip() for line in out.splitlines()):
        if not raw.startswith("{"):
            continue
        try:
            diagnostic = json.loads(raw)
        except json.JSONDecodeError:
            problems.append(f"check: stdout line is not JSON: {raw[:120]!r}")
            continue
        if cwd is not None:  # a multi-file case: its files relative to its folder, as execute() does for run
            prefix = case_prefix(cwd)
            diagnostic["file"] = diagnostic.get("file", "").removeprefix(prefix)
            diagnostic["message"] = diagnostic.get("message", "").replace(prefix, "").replace(prefix[:-1], ".")
        message = diagnostic.get("message", "")
        if "internal error" in message or not diagnostic.get("line"):
            problems.append(f"check: internal failure: {message[:200]!r}")
        diagnostics.append(diagnostic)
    return problems, diagnostics


def first_line(message):
    """Run's stderr shows a message's first line where it locates the error."""
    return message.strip().split("\n", 1)[0].strip()


def disagreements(binary, path, timeout):
    expected = read_expectations(path)
    status, error = run_error(binary, path, expected.args, timeout)
    if status is None:
        return [f"run did not finish in {timeout:g} s"]
    problems, diagnostics = check_diagnostics(binary, path, expected.args, timeout)
    if error is not None:
        file, line, message = error
        main_file = path.name if path.name in ("main.shl", "main.py") else str(path)
        same = [d for d in diagnostics if d.get("line") == line and first_line(d.get("message", "")) == message
                and (d.get("file") == file or (d.get("file") == main_file and file in (main_file, path.name)))]
        if not same:
            seen = [f"{d.get('file')}:{d.get('line')}: {d.get('message', '')[:120]}" for d in diagnostics]
            problems.append(f"run raised at {file}:{line}: {message[:160]!r}; check reported {seen or 'nothing'}")
    return problems


def read_expected(path):
    listed = {}
    if path is None:
        return listed
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, _, reason = line.partition(": ")
        if not reason.strip():
            raise SystemExit(f"{path}:{number}: each entry is `PATH: REASON`")
        listed[name.strip()] = reason.strip()
    return listed


def listed_name(path, listed):
    """The entry of `listed` that names `path`, or None."""
    resolved = str(path.resolve())
    for name in listed:
        if resolved.endswith("/" + name.lstrip("./")):
            return name
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the shardlang binary")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="scripts run at a time")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per run of the binary")
    parser.add_argument("--expected", help="the file of known disagreements")
    parser.add_argument("paths", nargs="+", help="folders or scripts")
    options = parser.parse_args()
    options.timeout *= timeout_scale()

    listed = read_expected(options.expected)
    scripts = [path for path in script_files(options.paths) if path.suffix in (".shl", ".py")]
    with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        results = list(pool.map(lambda path: disagreements(options.bin, path, options.timeout), scripts))
    agree = disagree = 0
    still_listed = set()
    for path, problems in zip(scripts, results):
        name = listed_name(path, listed)
        if name is not None:
            still_listed.add(name)
            if problems:
                continue
            print(f"FAIL {path}: listed in {options.expected} but check now agrees with run; remove the entry")
            disagree += 1
        elif problems:
            disagree += 1
            print(f"FAIL {path}")
            for problem in problems[:4]:
                print(f"     {problem}")
        else:
            agree += 1
    for name in sorted(set(listed) - still_listed):
        print(f"FAIL {name}: listed in {options.expected} but no such script was run")
        disagree += 1
    print(f"{agree} agree, {disagree} disagree, {len(still_listed)} known disagreements")
    return 0 if disagree == 0 and agree > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
