#!/usr/bin/env python3
"""The docs' snippet test: every program in docs/*.md whose output is shown is
run again, and the test fails, with a diff, if the output changed.

Usage: docs_snippets_test.py --bin build/shardlang [--update] [--jobs N] [FILE.md...]

Without FILE arguments it reads every docs/*.md of this checkout.

Snippet format (in the Markdown source):

    ```python
    import jax
    print(jax.device_count())
    ```

    ```text
    $ shardlang run devices.shl
    8
    ```

- An *output block* is a fenced block tagged `text` whose first line starts
  with `$ shardlang`. Fenced blocks that are not output blocks are prose.
- Its *program* is the nearest fenced `python` block above it. For each
  `$ shardlang ARGS...` line of the output block, the program is written to
  the file named by the first argument ending in `.shl` (in a fresh
  temporary directory, which is the working directory), and shardlang runs
  with ARGS (split as a POSIX shell would). What follows the `$` line, up to
  the next `$` line or the end of the block, is what the run printed: stdout
  and stderr together, as a terminal shows them, followed by a line
  `[exit status N]` when the status is not 0.
- An expected line may contain `[...]`, which matches any text (for
  wall-clock times, such as %timeit's host line).
- Runs happen with NO_COLOR=1 and stdin empty.

--update rewrites every output block whose output changed with what the run
printed (an expected line with `[...]` that still matches is kept), and
reports which blocks it rewrote. Exit status: 0 when every snippet matched
(or was updated), 1 otherwise.
"""
import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^```(\S*)\s*$")  # fences start at column 0
PROMPT = "$ shardlang"
WILDCARD = "[...]"


@dataclass
class Block:
    tag: str
    first: int   # index of the first content line in the file's lines
    lines: list  # the content lines


@dataclass
class Command:
    document: Path
    block: Block       # the output block this command belongs to
    line: int          # index in the document of the `$` line
    arguments: list
    program: str
    expected: list     # the lines printed, as documented


def fenced_blocks(lines):
    """Every fenced block of a Markdown file: tag, first content line, content."""
    blocks = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        blocks.append(Block(opening.group(1), index + 1, lines[index + 1:end]))
        index = end + 1
    return blocks


def commands_of(document):
    lines = document.read_text(encoding="utf-8").splitlines()
    program = None
    commands = []
    for block in fenced_blocks(lines):
        if block.tag == "python":
            program = block
            continue
        if block.tag != "text" or not block.lines or not block.lines[0].startswith(PROMPT):
            continue
        if program is None:
            raise SystemExit(f"{document}:{block.first + 1}: an output block with no python block above it")
        starts = [i for i, line in enumerate(block.lines) if line.startswith(PROMPT)]
        for number, start in enumerate(starts):
            stop = starts[number + 1] if number + 1 < len(starts) else len(block.lines)
            arguments = shlex.split(block.lines[start][1:])[1:]
            if not any(a.endswith(".shl") for a in arguments):
                raise SystemExit(f"{document}:{block.first + start + 1}: the command names no .shl file")
            commands.append(Command(document, block, block.first + start, arguments,
                                    "\n".join(program.lines) + "\n", block.lines[start + 1:stop]))
    return commands


def run(binary, command, timeout):
    with tempfile.TemporaryDirectory(prefix="shardlang-docs-") as directory:
        script = next(a for a in command.arguments if a.endswith(".shl"))
        (Path(directory) / script).write_text(command.program, encoding="utf-8")
        environment = dict(os.environ, NO_COLOR="1")
        try:
            done = subprocess.run([binary, *command.arguments], cwd=directory, env=environment,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return [f"[timed out after {timeout} s]"]
    printed = done.stdout.decode("utf-8", errors="replace").splitlines()
    printed = [line.rstrip() for line in printed]
    if done.returncode != 0:
        printed.append(f"[exit status {done.returncode}]")
    return printed


def line_matches(expected, actual):
    if WILDCARD not in expected:
        return expected.rstrip() == actual
    pattern = ".*".join(re.escape(part) for part in expected.rstrip().split(WILDCARD))
    return re.fullmatch(pattern, actual) is not None


def output_matches(expected, actual):
    return len(expected) == len(actual) and all(line_matches(e, a) for e, a in zip(expected, actual))


def updated_lines(expected, actual):
    """The new expected text: the actual output, keeping wildcard lines that still match."""
    if len(expected) != len(actual):
        return actual
    return [e if WILDCARD in e and line_matches(e, a) else a for e, a in zip(expected, actual)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the shardlang binary")
    parser.add_argument("--update", action="store_true", help="rewrite changed output blocks")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=300, help="seconds per snippet")
    parser.add_argument("documents", nargs="*", type=Path)
    options = parser.parse_args()
    # Sanitizer builds run several times slower: .ci/sanitize scales every timeout.
    options.timeout *= float(os.environ.get("SHARDLANG_TEST_TIMEOUT_SCALE", "1"))
    binary = str(Path(options.bin).resolve())
    documents = options.documents or sorted((Path(__file__).resolve().parents[2] / "docs").glob("*.md"))

    commands = [command for document in documents for command in commands_of(document)]
    with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        results = list(pool.map(lambda c: run(binary, c, options.timeout), commands))

    failures = 0
    replacements = {}  # document -> {line index of `$` line: (old length, new lines)}
    for command, actual in zip(commands, results):
        where = f"{command.document.name}:{command.line + 1}"
        if output_matches(command.expected, actual):
            continue
        failures += 1
        if options.update:
            replacements.setdefault(command.document, {})[command.line] = (
                len(command.expected), updated_lines(command.expected, actual))
            print(f"updated {where}: {' '.join(command.arguments)}")
            continue
        print(f"FAIL {where}: shardlang {' '.join(command.arguments)}")
        sys.stdout.writelines(difflib.unified_diff([l + "\n" for l in command.expected], [l + "\n" for l in actual],
                                                   "documented", "printed now"))
    for document, changes in replacements.items():
        lines = document.read_text(encoding="utf-8").splitlines()
        # Bottom up, so that earlier line indexes stay valid.
        for line in sorted(changes, reverse=True):
            old_length, new_lines = changes[line]
            lines[line + 1:line + 1 + old_length] = new_lines
        document.write_text("\n".join(lines) + "\n", encoding="utf-8")

    print(f"{len(commands) - failures} passed, {failures} {'updated' if options.update else 'failed'}")
    return 0 if options.update or failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
