"""The shardlang Jupyter kernel: cells are shardlang code, run by one
interpreter per notebook (a wrapper kernel over the shardlang module).

- print writes to the cell's stdout; a cell's last expression is its Out[n];
- an error is the cell's traceback, with the caret under the failing code;
- %timeit times a statement (host time, then the simulated TPU's);
- Tab completes names and members; Shift-Tab shows `:type`'s type of the
  name under the cursor, with its sharding (x: float32[8@X,2@Y]);
- jax.debug.visualize_array_sharding draws an HTML table (its text form for
  terminal frontends).

The devices are the command line's defaults, changed by the environment:
SHARDLANG_PLATFORM (tpu, cpu), SHARDLANG_DEVICES (8), SHARDLANG_CHIP (v5e).
As on the command line, cells read files and import modules from the
notebook's directory, then from SHARDLANG_PATH's directories (':'-separated).

    python3 -m shardlang.kernel -f CONNECTION_FILE    # what Jupyter runs
"""
import keyword
import os
import re
import time

from ipykernel.kernelbase import Kernel

import shardlang

# The stream text a cell printed is sent at most this often (and before any
# display, so that the order of a cell's outputs is the order they came in).
FLUSH_SECONDS = 0.1

NAME_BEFORE_CURSOR = re.compile(r"[A-Za-z_][\w.]*$")
DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


class ShardlangKernel(Kernel):
    implementation = "shardlang"
    implementation_version = shardlang.__version__
    language = "shardlang"
    language_version = shardlang.__version__
    language_info = {
        "name": "shardlang",
        "version": shardlang.__version__,
        "mimetype": "text/x-python",
        "file_extension": ".shl",
        "pygments_lexer": "python3",
        "codemirror_mode": {"name": "python", "version": 3},
    }
    banner = ("shardlang " + shardlang.__version__ +
              ": a JAX-like language with sharded types, on a simulated TPU mesh")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._pending = []
        self._last_flush = 0.0
        self._silent = False
        self.interpreter = shardlang.Interpreter(
            platform=os.environ.get("SHARDLANG_PLATFORM", "tpu"),
            devices=int(os.environ.get("SHARDLANG_DEVICES", "8")),
            chip=os.environ.get("SHARDLANG_CHIP", "v5e"),
            output=self._write, display=self._display,
            module_path=[d for d in os.environ.get("SHARDLANG_PATH", "").split(":") if d],
            file_access=True)

    # ------------------------------------------------------------ output

    def _write(self, text):
        self._pending.append(text)
        if time.monotonic() - self._last_flush >= FLUSH_SECONDS:
            self._flush()

    def _flush(self):
        if self._pending and not self._silent:
            self.send_response(self.iopub_socket, "stream", {"name": "stdout", "text": "".join(self._pending)})
        self._pending = []
        self._last_flush = time.monotonic()

    def _display(self, kind, text, html):
        self._flush()
        if self._silent:
            return
        data = {"text/plain": text.rstrip("\n")}
        if html:
            data["text/html"] = html
        if kind == "value":
            self.send_response(self.iopub_socket, "execute_result",
                               {"execution_count": self.execution_count, "data": data, "metadata": {}})
        else:
            self.send_response(self.iopub_socket, "display_data", {"data": data, "metadata": {}})

    # ------------------------------------------------------------ execution

    def do_execute(self, code, silent, store_history=True, user_expressions=None, allow_stdin=False):
        self._silent = silent
        try:
            self.interpreter.run(code, name=f"In[{self.execution_count}]", interactive=True)
        except shardlang.Error as error:
            self._flush()
            message = error.diagnostic.message if error.diagnostic is not None else str(error)
            return self._error(error.exception_type or "Error", message, str(error).split("\n"))
        except KeyboardInterrupt:
            self._flush()
            return self._error("KeyboardInterrupt", "", ["KeyboardInterrupt"])
        self._flush()
        return {"status": "ok", "execution_count": self.execution_count, "payload": [], "user_expressions": {}}

    def _error(self, name, value, traceback):
        content = {"ename": name, "evalue": value, "traceback": traceback}
        if not self._silent:
            self.send_response(self.iopub_socket, "error", content)
        return dict(content, status="error", execution_count=self.execution_count)

    def do_is_complete(self, code):
        if shardlang.Interpreter.is_complete(code):
            return {"status": "complete"}
        return {"status": "incomplete", "indent": "    " if code.rstrip().endswith(":") else ""}

    # ------------------------------------------------------------ completion and inspection

    def do_complete(self, code, cursor_pos):
        match = NAME_BEFORE_CURSOR.search(code[:cursor_pos])
        token = match.group() if match else ""
        base, dot, partial = token.rpartition(".")
        if dot:
            candidates = self.interpreter.members(base) if base else []
        else:
            candidates = self.interpreter.names() + keyword.kwlist
        matches = sorted({name for name in candidates
                          if name.startswith(partial) and (partial.startswith("_") or not name.startswith("_"))})
        return {"status": "ok", "matches": matches, "cursor_start": cursor_pos - len(partial),
                "cursor_end": cursor_pos, "metadata": {}}

    def do_inspect(self, code, cursor_pos, detail_level=0, omit_sections=()):
        expression = name_at(code, cursor_pos)
        found = False
        data = {}
        if expression:
            try:
                data = {"text/plain": f"{expression}: {self.interpreter.type_of(expression)}"}
                found = True
            except shardlang.Error:
                pass
        return {"status": "ok", "found": found, "data": data, "metadata": {}}


def name_at(code, cursor_pos):
    """The dotted name under the cursor, or the one before an open `(` just
    before it (Shift-Tab after `f(` asks about f)."""
    before = code[:cursor_pos]
    after = code[cursor_pos:]
    if before.rstrip().endswith("("):
        before, after = before.rstrip()[:-1].rstrip(), ""
    name = (re.search(r"[\w.]*$", before).group() + re.match(r"\w*", after).group()).strip(".")
    return name if DOTTED_NAME.fullmatch(name) else ""


def main():
    from ipykernel.kernelapp import IPKernelApp
    IPKernelApp.launch_instance(kernel_class=ShardlangKernel)


if __name__ == "__main__":
    main()
