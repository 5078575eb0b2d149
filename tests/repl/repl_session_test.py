#!/usr/bin/env python3
"""The REPL on a terminal: drives `shardlang` through a pseudo-terminal.

A function defined over several lines survives an error in a later entry,
Ctrl-C abandons a half-typed entry and interrupts a long loop with
KeyboardInterrupt without losing the variables, tab completes module members
(jnp.si -> jnp.sin) and attributes, :type shows a sharded type, :vars and
:mesh describe the session, `_` and %timeit work, Ctrl-D exits with status 0,
and the multi-line entry is saved in ~/.shardlang_history as one item.

Usage: repl_session_test.py --bin build/shardlang
"""
import argparse
import os
import pty
import re
import select
import sys
import tempfile
import time

TIMEOUT = 20  # seconds for any one expected piece of output


class Terminal:
    def __init__(self, argv, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            try:
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.seen = ""  # output not yet consumed by expect()
        self.transcript = ""

    def send(self, text):
        os.write(self.fd, text.encode())

    def read_some(self, deadline):
        ready, _, _ = select.select([self.fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return False
        try:
            chunk = os.read(self.fd, 4096).decode("utf-8", "replace")
        except OSError:  # EIO: the child closed the terminal
            return None
        if not chunk:
            return None
        self.seen += chunk
        self.transcript += chunk
        return True

    def expect(self, pattern, what):
        """Consumes output up to and including the first match of `pattern`."""
        deadline = time.monotonic() + TIMEOUT
        regex = re.compile(pattern)
        while True:
            match = regex.search(self.seen)
            if match:
                self.seen = self.seen[match.end():]
                return match
            if not self.read_some(deadline):
                fail(f"waiting for {what} ({pattern!r})", self.transcript)

    def wait_exit(self):
        deadline = time.monotonic() + TIMEOUT
        while self.read_some(deadline):
            pass
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.05)
        os.kill(self.pid, 9)
        fail("waiting for the REPL to exit", self.transcript)


def fail(what, transcript):
    print(f"FAIL: {what}\n--- terminal transcript ---\n{transcript}\n---", file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    binary = os.path.abspath(parser.parse_args().bin)
    with tempfile.TemporaryDirectory() as home:
        env = {"HOME": home, "TERM": "dumb", "NO_COLOR": "1", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        term = Terminal([binary], env)
        term.expect(r">>> ", "the first prompt")

        term.send("def twice(x):\r")
        term.expect(r"\.\.\. ", "a continuation prompt after a block header")
        term.send("    return 2 * x\r")
        term.expect(r"\.\.\. ", "a continuation prompt inside the block")
        term.send("\r")
        term.expect(r">>> ", "the prompt after the block's empty line")

        term.send("undefined_name + 1\r")
        term.expect(r"<stdin>:1:\d+: error: .*name 'undefined_name' is not defined", "the NameError diagnostic")
        term.expect(r">>> ", "the prompt after the error")

        term.send("twice(21)\r")
        term.expect(r"\n42\r?\n", "the echoed value of twice(21)")
        term.expect(r">>> ", "the prompt after the echo")

        term.send("abandoned = (1,")
        term.send("\x03")  # Ctrl-C
        term.expect(r"KeyboardInterrupt", "KeyboardInterrupt after Ctrl-C")
        term.expect(r">>> ", "a fresh prompt after Ctrl-C")
        term.send("twice(50)\r")
        term.expect(r"\n100\r?\n", "the session still works after Ctrl-C")
        term.expect(r">>> ", "the prompt")

        for line in ["import jax", "import jax.numpy as jnp", "from jax.sharding import NamedSharding, PartitionSpec as P",
                     "mesh = jax.make_mesh((2, 4), ('X', 'Y'))",
                     "x = jax.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(mesh, P('X', 'Y')))"]:
            term.send(line + "\r")
            term.expect(r">>> ", f"the prompt after {line!r}")

        # Tab completion: a member of a module (two tabs list the candidates),
        # a unique attribute of an array (completed in place), a command.
        term.send("jnp.si\t\t")
        term.expect(r"jnp\.sin\b", "jnp.sin among the completions of jnp.si")
        term.send("n(x).shape\r")
        term.expect(r"\n\(8, 4\)\r?\n", "jnp.sin(x).shape, typed after the completion list")
        term.expect(r">>> ", "the prompt after the completed line")
        term.send("x.shap\t\r")
        term.expect(r"x\.shape", "x.shap completed to x.shape")
        term.expect(r"\n\(8, 4\)\r?\n", "the value of the completed x.shape")
        term.expect(r">>> ", "the prompt after the completed attribute")
        term.send(":ty\t x * 2\r")
        term.expect(r"x \* 2 : float32\[8@X,4@Y\]", ":type (completed from :ty) of a sharded expression")
        term.expect(r">>> ", "the prompt after :type")

        # An error, then the earlier variables are still there; `_` is the last value.
        term.send("x @ undefined_matrix\r")
        term.expect(r"name 'undefined_matrix' is not defined", "the NameError")
        term.expect(r">>> ", "the prompt after the error")
        term.send("x.shape\r")
        term.expect(r"\n\(8, 4\)\r?\n", "x is still defined after the error")
        term.expect(r">>> ", "the prompt")
        term.send("_[0] + twice(1)\r")
        term.expect(r"\n10\r?\n", "_ holds the last value")
        term.expect(r">>> ", "the prompt")

        # Ctrl-C interrupts a long computation; the session goes on.
        # (the empty line ends the block where a one-line compound statement
        # waits for one, as Python's REPL does)
        term.send("for i in range(10**9): pass\r\r")
        time.sleep(1.0)
        term.send("\x03")
        term.expect(r"KeyboardInterrupt", "KeyboardInterrupt from the running loop")
        term.expect(r">>> ", "the prompt after the interrupted loop")
        term.send("i > 0, twice(x.shape[0])\r")
        term.expect(r"\(True, 16\)", "the session keeps its variables after the interrupt")
        term.expect(r">>> ", "the prompt")

        term.send(":vars\r")
        term.expect(r"\nx +float32\[8@X,4@Y\]\r?\n", ":vars shows x with its sharded type")
        term.expect(r">>> ", "the prompt after :vars")
        term.send("jax.set_mesh(mesh)\r")
        term.expect(r">>> ", "the prompt after set_mesh")
        term.send(":mesh\r")
        term.expect(r"mesh: +AbstractMesh\('X': 2, 'Y': 4", ":mesh shows the context mesh")
        term.expect(r"devices: 8 x TPU v5 lite \(platform tpu\), ids 0 1 2 3 4 5 6 7", ":mesh shows the devices")
        term.expect(r">>> ", "the prompt after :mesh")

        term.send("%timeit -n 2 -r 3 twice(3)\r")
        term.expect(r"2 loops, best of 3: ", "%timeit's line")
        term.expect(r">>> ", "the prompt after %timeit")

        term.send("\x04")  # Ctrl-D
        status = term.wait_exit()
        if status != 0:
            fail(f"exit status {status} after Ctrl-D, expected 0", term.transcript)

        with open(os.path.join(home, ".shardlang_history"), encoding="utf-8") as history:
            saved = history.read()
        if "def twice(x):\n    return 2 * x\n" not in saved or "abandoned" in saved:
            fail(f"history file holds {saved!r}", term.transcript)
    print("ok: REPL session over a pseudo-terminal")


if __name__ == "__main__":
    main()
