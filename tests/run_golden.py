#!/usr/bin/env python3
"""Golden script tests: run every .shl file under the given folders (recursively)
and compare shardlang's behaviour with the expectation comments in the file.

Usage: run_golden.py --bin build/shardlang [--timeout S] [--quiet] PATH...

PATH is a folder (every .shl under it) or a .shl file. Comment forms, the same
as the shared conformance scripts use:

  # expect: TEXT         the next line of stdout is TEXT (trailing spaces ignored)
  # expect-error: TEXT   `run` ends with an uncaught error located at this line
                         whose stderr contains TEXT; exit status 1
  # check-error: TEXT    `check --format json` reports an error at this line
                         whose message contains TEXT; exactly these are reported
  # check-ok             `check` reports no error (implied by `# expect:` lines
                         without error forms, unless `# check-skip`)
  # check-skip           the file is not run through `check`
  # expect-stderr: TEXT  a line of `run`'s stderr is TEXT (stripped; these lines
                         appear in this order, others may come between)
  # args: FLAGS          extra flags for `run` and `check`
  # expect-error-at: FILE:LINE: TEXT    `run` ends with an uncaught error located
                         in FILE (of a multi-file case) at LINE, stderr containing TEXT
  # check-error-at: FILE:LINE: TEXT     `check` reports an error in FILE at LINE

A folder holding `main.shl` or `main.py` is one multi-file case (tests/golden/
modules/): its main file carries the expectations and is run from the folder
(`shardlang run main.py`); the folder's other files are the modules it
imports. The folder's absolute path is removed from stderr and from check's
file names, so expectations name the case's files relative to it
(`# expect-stderr: File "pkg/mod.py", line 3, in f`).

Prints `ok`/`FAIL` per file and `N passed, M failed`; exits 1 on any failure.

--update rewrites the `# expect:` lines of each failing file with what `run`
printed, when they are one block of whole lines (as a --profile table is) and
the file expects no error; other files are reported, not touched.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

DIRECTIVE = re.compile(
    r"#\s*(expect-error-at|expect-error|expect-stderr|check-error-at|check-error|expect|check-ok|check-skip|args)"
    r"(?![\w-]):?\s?")
ERROR_LOCATION = re.compile(r"(?:^|\s)([^\s:]*):(\d+)(?::\d+)?:\s*(?:error|Error)", re.MULTILINE)
AT_LOCATION = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):\s?(?P<text>.*)$")
CASE_MAINS = ("main.shl", "main.py")


@dataclass
class Expectations:
    stdout: list = field(default_factory=list)            # exact lines, in order
    run_error: tuple = None                               # (line, text, file or None)
    stderr: list = field(default_factory=list)            # stripped lines, in order
    check_errors: list = field(default_factory=list)      # [(line, text, file or None)]
    check_ok: bool = False
    check_skip: bool = False
    args: list = field(default_factory=list)

    def runs(self):
        return bool(self.stdout or self.run_error or not self.check_errors)

    def checks(self):
        if self.check_skip:
            return False
        return bool(self.check_errors or self.check_ok or self.run_error is None)


def read_expectations(path):
    expected = Expectations()
    for number, line in enumerate(path.read_bytes().decode("utf-8", "replace").splitlines(), 1):
        matches = list(DIRECTIVE.finditer(line))
        # Several directives may share a line; each one's text ends where the next begins.
        for match, following in zip(matches, matches[1:] + [None]):
            text = line[match.end():following.start() if following else len(line)]
            kind = match.group(1)
            if kind == "expect":
                expected.stdout.append(text.rstrip())
            elif kind == "expect-error":
                expected.run_error = (number, text.strip(), None)
            elif kind in ("expect-error-at", "check-error-at"):
                at = AT_LOCATION.match(text.strip())
                if not at:
                    raise SystemExit(f"{path}:{number}: {kind} needs FILE:LINE: TEXT")
                entry = (int(at.group("line")), at.group("text").strip(), at.group("file"))
                if kind == "expect-error-at":
                    expected.run_error = entry
                else:
                    expected.check_errors.append(entry)
            elif kind == "expect-stderr":
                expected.stderr.append(text.strip())
            elif kind == "check-error":
                expected.check_errors.append((number, text.strip(), None))
            elif kind == "check-ok":
                expected.check_ok = True
            elif kind == "check-skip":
                expected.check_skip = True
            else:
                expected.args += shlex.split(text)
    return expected


def timeout_scale():
    """Sanitizer builds run several times slower: .ci/sanitize scales every timeout."""
    return float(os.environ.get("SHARDLANG_TEST_TIMEOUT_SCALE", "1"))


def execute(command, cwd, timeout):
    """(exit status or None, stdout, stderr); None when it could not finish."""
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL, cwd=cwd)
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout:g} s"
    except OSError as error:
        return None, "", f"could not start {command[0]}: {error}"
    out, err = done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
    if cwd is not None:  # a multi-file case: its files relative to its folder
        err = err.replace(case_prefix(cwd), "").replace(case_prefix(cwd)[:-1], ".")
    return done.returncode, out, err


def case_prefix(folder):
    return str(Path(folder).resolve()) + "/"


def is_case_main(path):
    return path.name in CASE_MAINS


def command_for(binary, verb, path, *flags):
    """The command line and folder of one run: a case's main runs from its folder."""
    if is_case_main(path):
        return [str(Path(binary).resolve()), verb, *flags, path.name], path.parent
    return [binary, verb, *flags, str(path)], None


def tail(text, limit=400):
    return text.strip()[-limit:]


def run_problems(binary, path, expected, timeout):
    status, out, err = execute(*command_for(binary, "run", path, *expected.args), timeout)
    if status is None:
        return [err]
    problems = []
    got = [line.rstrip() for line in out.splitlines()]
    for index, want in enumerate(expected.stdout):
        have = got[index] if index < len(got) else None
        if have != want:
            shown = "end of output" if have is None else repr(have)
            problems.append(f"stdout line {index + 1}: expected {want!r}, got {shown}")
            break
    err_lines = iter(line.strip() for line in err.splitlines())
    for want in expected.stderr:
        if not any(have == want for have in err_lines):
            problems.append(f"stderr lacks the line {want!r} (in order); stderr: {tail(err)}")
            break
    if expected.run_error is None:
        if not problems and len(got) > len(expected.stdout):
            problems.append(f"unexpected extra stdout line {len(expected.stdout) + 1}: {got[len(expected.stdout)]!r}")
        if status != 0:
            problems.append(f"exit status {status}, expected 0; stderr: {tail(err)}")
        return problems
    line, text, file = expected.run_error
    if status != 1:
        problems.append(f"exit status {status}, expected 1 (uncaught error at line {line})")
    if text not in err:
        problems.append(f"stderr lacks {text!r}; stderr: {tail(err)}")
    located = sorted({(m.group(1), int(m.group(2))) for m in ERROR_LOCATION.finditer(err)})
    if not any(at == line and (file is None or name == file) for name, at in located):
        where = f"{file}:{line}" if file else f"line {line}"
        problems.append(f"no error located at {where} in stderr (found {located})")
    return problems


def check_problems(binary, path, expected, timeout):
    command, cwd = command_for(binary, "check", path, "--format", "json", *expected.args)
    status, out, err = execute(command, cwd, timeout)
    if status is None:
        return [f"check: {err}"]
    problems = []
    reported = []
    for raw in filter(None, (line.strip() for line in out.splitlines())):
        try:
            diagnostic = json.loads(raw)
        except json.JSONDecodeError:
            problems.append(f"check: stdout line is not JSON: {raw[:120]!r}")
            continue
        if cwd is not None and diagnostic.get("file", "").startswith(case_prefix(cwd)):
            diagnostic["file"] = diagnostic["file"][len(case_prefix(cwd)):]
        if diagnostic.get("severity", "error") == "error":
            reported.append(diagnostic)
    main_file = path.name if is_case_main(path) else str(path)
    for line, text, file in expected.check_errors:
        hit = next((d for d in reported if d.get("line") == line and text in d.get("message", "")
                    and d.get("file") == (file or main_file)), None)
        if hit is None:
            seen = [f"{d.get('file')}:{d.get('line')}: {d.get('message', '')[:100]}" for d in reported]
            problems.append(f"check: no diagnostic at line {line} containing {text!r}; got {seen}")
        else:
            reported.remove(hit)
    for d in reported:
        problems.append(f"check: unexpected diagnostic at line {d.get('line')}: {d.get('message', '')[:160]}")
    expected_status = 1 if expected.check_errors else 0
    if status != expected_status:
        problems.append(f"check: exit status {status}, expected {expected_status}; stderr: {tail(err, 300)}")
    return problems


def update_expectations(binary, path, expected, timeout):
    """Rewrites the file's one block of `# expect:` lines with run's stdout; a reason when it cannot."""
    if expected.run_error is not None:
        return "it expects an error"
    lines = path.read_bytes().decode("utf-8", "replace").splitlines()
    block = [i for i, line in enumerate(lines) if re.fullmatch(r"#\s*expect:.*", line)]
    if not block or block != list(range(block[0], block[0] + len(block))) or len(block) != len(expected.stdout):
        return "its `# expect:` lines are not one block of whole lines"
    status, out, err = execute(*command_for(binary, "run", path, *expected.args), timeout)
    if status != 0:
        return f"run exited with {status}: {tail(err)}"
    fresh = [f"# expect: {line.rstrip()}".rstrip() if line.strip() else "# expect:" for line in out.splitlines()]
    lines[block[0]:block[-1] + 1] = fresh
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return None


def script_files(paths):
    """The .shl scripts under each path, and the main file of each multi-file
    case (whose other files are modules, not scripts)."""
    for path in map(Path, paths):
        if not path.is_dir():
            yield path
            continue
        cases = sorted({main.parent for name in CASE_MAINS for main in path.rglob(name)})
        def in_case(file):
            return any(case == file.parent or case in file.parents for case in cases)
        found = [file for file in path.rglob("*.shl") if not in_case(file)]
        found += [next(case / name for name in CASE_MAINS if (case / name).exists()) for case in cases]
        yield from sorted(found)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the shardlang binary")
    parser.add_argument("--timeout", type=float, default=60, help="seconds per run of the binary")
    parser.add_argument("--quiet", action="store_true", help="print only failures and the summary")
    parser.add_argument("--update", action="store_true", help="rewrite failing files' `# expect:` block from run's output")
    parser.add_argument("paths", nargs="+", help="folders or .shl files")
    options = parser.parse_args()
    options.timeout *= timeout_scale()

    passed = failed = 0
    for path in script_files(options.paths):
        expected = read_expectations(path)
        problems = []
        if expected.runs():
            problems += run_problems(options.bin, path, expected, options.timeout)
        if expected.checks():
            problems += check_problems(options.bin, path, expected, options.timeout)
        if problems and options.update:
            reason = update_expectations(options.bin, path, expected, options.timeout)
            print(f"{'updated' if reason is None else 'not updated'} {path}{'' if reason is None else ': ' + reason}")
            if reason is None:
                problems = []
        if problems:
            failed += 1
            print(f"FAIL {path}")
            for problem in problems[:6]:
                print(f"     {problem}")
        else:
            passed += 1
            if not options.quiet:
                print(f"ok   {path}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
