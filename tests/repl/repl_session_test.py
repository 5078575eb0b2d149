#!/usr/bin/env python3
"""The REPL on a terminal: drives `shardlang` through a pseudo-terminal.

A function defined over several lines survives an error in a later entry,
Ctrl-C abandons a half-typed entry and interrupts a long loop with
KeyboardInterrupt without losing the variables, tab completes module members
(jnp.si -> jnp.sin), attributes and commands, :type shows a sharded type
without computing it, :vars, :mesh, :profile, :load and :help work, `_` and
%timeit work, a multi-line entry is one history item (recalled whole, and
saved so in ~/.shardlang_history), :quit and Ctrl-D exit with status 0.
Running host code starts no thread.

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
        # Host code runs on the REPL's one thread (lang/large_stack.hpp): once
        # a process has started a thread, every shared_ptr copy is atomic.
        threads = os.listdir(f"/proc/{term.pid}/task") if os.path.isdir("/proc") else ["1"]
        if len(threads) != 1:
            fail(f"the REPL runs {len(threads)} threads after host code, not 1", term.transcript)

        term.send("abandoned = (1,")
        # Ctrl-C once readline has echoed the half-typed entry: sent sooner,
        # it can reach the terminal before readline has taken it over.
        term.expect(r"abandoned = \(1,", "the half-typed entry echoed")
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

        # Ctrl-C interrupts a long computation; the session goes on. The loop
        # says when it runs, so Ctrl-C is sent then, not after a guessed
        # delay (the empty line ends the block, as in Python's REPL; the
        # printed words differ from the echoed source).
        term.send("for i in range(10**9):\r")
        term.expect(r"\.\.\. ", "a continuation prompt in the loop")
        term.send("    if i == 0: print('loop', 'started')\r")
        term.expect(r"\.\.\. ", "a continuation prompt after the loop's body")
        term.send("\r")
        term.expect(r"loop started", "the loop running")
        term.send("\x03")
        term.expect(r"KeyboardInterrupt", "KeyboardInterrupt from the running loop")
        term.expect(r">>> ", "the prompt after the interrupted loop")
        term.send("i >= 0, twice(x.shape[0])\r")
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

        # %timeit: the host's time, then the simulated TPU's.
        term.send("%timeit -n 2 -r 3 jnp.sin(x)\r")
        match = term.expect(r"2 loops, best of 3: [^\r\n]+ per loop\r?\n(.*)\r?\n", "%timeit's host line")
        if not re.match(r"simulated TPU v5e: \S+ \S+ per loop\r?$", match.group(1)):
            fail(f"%timeit's second line is {match.group(1)!r}, not the simulated TPU time", term.transcript)
        term.expect(r">>> ", "the prompt after %timeit")

        # Completion of an attribute with several candidates, and of commands.
        # (the first tab adds their common "a", the next lists them)
        term.send("x.sh\t\t\t")
        term.expect(r"x\.shape\s+x\.sharding", "x.shape and x.sharding among the completions of x.sh")
        term.send("pe[1]\r")
        term.expect(r"\n4\r?\n", "x.shape[1] typed after the completion list")
        term.expect(r">>> ", "the prompt")
        term.send(":\t\t")
        term.expect(r"help\s+load\s+mesh\s+profile\s+quit\s+type\s+vars", "every command among the completions of ':'")
        term.send("help\r")
        term.expect(r":type EXPR +the type of EXPR", ":help lists :type")
        term.expect(r">>> ", "the prompt after :help")

        # :type computes nothing: 2^30 x 2^14 float32 (64 TiB) answers at once.
        term.send("w = jnp.ones((1 << 14, 8))\r")
        term.expect(r">>> ", "the prompt after w")
        term.send(":type jnp.ones((1 << 30, 1 << 14)) @ w\r")
        term.expect(r"@ w : float32\[1073741824,8\]", ":type of an expression too large to compute")
        term.expect(r">>> ", "the prompt after :type")

        # :profile shows the cost of the last statement only.
        term.send("y = jnp.sin(x) * 2\r")
        term.expect(r">>> ", "the prompt after y")
        term.send(":profile\r")
        term.expect(r"profile on v5e, 8 devices", ":profile's table")
        term.expect(r"<stdin>:1 +sin", ":profile's row for sin")
        term.expect(r">>> ", "the prompt after :profile")

        # A multi-line entry comes back from the history as one item: after
        # `del`, Ctrl-P twice recalls the whole definition, which runs again.
        term.send("def thrice(x):\r    return 3 * x\r\r")
        term.expect(r">>> ", "the prompt after defining thrice")
        term.send("del thrice\r")
        term.expect(r">>> ", "the prompt after del")
        term.send("\x10\x10\r")  # Ctrl-P Ctrl-P, Enter
        term.expect(r"\.\.\. ", "the recalled block waits for its empty line")
        term.send("\r")
        term.expect(r">>> ", "the prompt after the recalled block")
        term.send("thrice(5)\r")
        term.expect(r"\n15\r?\n", "the recalled definition ran")
        term.expect(r">>> ", "the prompt")

        # :load runs a file into the session, which sees its variables.
        script = os.path.join(home, "helper.shl")
        with open(script, "w", encoding="utf-8") as handle:
            handle.write("loaded = twice(4)\nprint('loaded', loaded)\n")
        term.send(f":load {script}\r")
        term.expect(r"loaded 8\r?\n", ":load's output")
        term.expect(r">>> ", "the prompt after :load")
        term.send("loaded + 1\r")
        term.expect(r"\n9\r?\n", "the loaded variable")
        term.expect(r">>> ", "the prompt")

        term.send(":quit\r")
        status = term.wait_exit()
        if status != 0:
            fail(f"exit status {status} after :quit, expected 0", term.transcript)

        with open(os.path.join(home, ".shardlang_history"), encoding="utf-8") as history:
            saved = history.read()
        if "def twice(x):\n    return 2 * x\n" not in saved or "abandoned" in saved:
            fail(f"history file holds {saved!r}", term.transcript)

        # Ctrl-D at the prompt leaves too.
        term = Terminal([binary], env)
        term.expect(r">>> ", "the first prompt of a second session")
        term.send("\x04")
        status = term.wait_exit()
        if status != 0:
            fail(f"exit status {status} after Ctrl-D, expected 0", term.transcript)
    print("ok: REPL session over a pseudo-terminal")


if __name__ == "__main__":
    main()
