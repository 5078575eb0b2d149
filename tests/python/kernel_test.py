#!/usr/bin/env python3
"""The shardlang Jupyter kernel (python/shardlang/kernel.py) through a
Jupyter client, as a notebook frontend drives it: one interpreter for the
session, print to stdout, a cell's value as its result, errors as
tracebacks with the caret, %timeit, completion, Shift-Tab inspection,
visualize_array_sharding as HTML, is_complete, and interrupting a cell.

Usage: kernel_test.py --jupyter-path BUILD/share/jupyter
"""
import argparse
import os
import sys
import tempfile
import time
import unittest

from jupyter_client.manager import start_new_kernel

TIMEOUT = 60


class Kernel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.modules = tempfile.TemporaryDirectory()
        with open(os.path.join(cls.modules.name, "notebook_helpers.py"), "w") as f:
            f.write("SCALE = 3\n")
        env = dict(os.environ, SHARDLANG_PATH=cls.modules.name)
        cls.manager, cls.client = start_new_kernel(kernel_name="shardlang", startup_timeout=TIMEOUT, env=env)

    @classmethod
    def tearDownClass(cls):
        cls.client.stop_channels()
        cls.manager.shutdown_kernel(now=True)
        cls.modules.cleanup()

    def execute(self, code):
        """The reply and the iopub messages of one execution, until idle."""
        message_id = self.client.execute(code, stop_on_error=False)  # an error cell must not abort the next
        outputs = []
        while True:
            message = self.client.get_iopub_msg(timeout=TIMEOUT)
            if message["parent_header"].get("msg_id") != message_id:
                continue
            kind = message["msg_type"]
            if kind == "status" and message["content"]["execution_state"] == "idle":
                break
            if kind in ("stream", "execute_result", "display_data", "error"):
                outputs.append((kind, message["content"]))
        return self.reply(message_id), outputs

    def reply(self, message_id):
        """The shell reply to the request `message_id`."""
        while True:
            reply = self.client.get_shell_msg(timeout=TIMEOUT)
            if reply["parent_header"].get("msg_id") == message_id:
                return reply["content"]

    def stdout(self, outputs):
        return "".join(content["text"] for kind, content in outputs if kind == "stream")

    def test_cells_import_from_shardlang_path_and_read_files(self):
        notes = os.path.join(self.modules.name, "notes.txt")
        reply, outputs = self.execute(f"import notebook_helpers\nwith open({notes!r}, 'w') as f:\n"
                                      f"    f.write('read back')\nprint(notebook_helpers.SCALE, open({notes!r}).read())")
        self.assertEqual(reply["status"], "ok", outputs)
        self.assertEqual(self.stdout(outputs), "3 read back\n")

    def test_a_session_keeps_its_variables_and_prints(self):
        reply, outputs = self.execute("import jax\nimport jax.numpy as jnp\nk = 3\nprint('k is', k)")
        self.assertEqual(reply["status"], "ok")
        self.assertEqual(self.stdout(outputs), "k is 3\n")
        reply, outputs = self.execute("k * 2")
        results = [content for kind, content in outputs if kind == "execute_result"]
        self.assertEqual([r["data"]["text/plain"] for r in results], ["6"])
        self.assertEqual(results[0]["execution_count"], reply["execution_count"])

    def test_error_is_a_traceback_with_the_caret(self):
        reply, outputs = self.execute("def f():\n    return undefined_name + 1\nf()")
        self.assertEqual(reply["status"], "error")
        self.assertEqual(reply["ename"], "NameError")
        errors = [content for kind, content in outputs if kind == "error"]
        self.assertEqual(len(errors), 1)
        traceback = "\n".join(errors[0]["traceback"])
        self.assertIn("Traceback (most recent call last):", traceback)
        self.assertIn("NameError: name 'undefined_name' is not defined", traceback)
        self.assertIn("    2 |     return undefined_name + 1", traceback)
        self.assertIn("|            ^^^^^^^^^^^^^^", traceback)

    def test_timeit(self):
        reply, outputs = self.execute("import jax.numpy as jnp\nz = jnp.ones((8, 8))\n%timeit -n 2 -r 2 jnp.sin(z)")
        self.assertEqual(reply["status"], "ok")
        lines = self.stdout(outputs).splitlines()
        self.assertRegex(lines[0], r"^2 loops, best of 2: \S+ \S+ per loop$")
        self.assertRegex(lines[1], r"^simulated TPU v5e: \S+ \S+ per loop$")

    def test_visualization_is_an_html_table(self):
        reply, outputs = self.execute(
            "import jax\nmesh = jax.make_mesh((4, 2), ('a', 'b'))\n"
            "y = jax.device_put(jax.numpy.zeros((8, 8)), jax.NamedSharding(mesh, jax.P('a', 'b')))\n"
            "jax.debug.visualize_array_sharding(y)")
        self.assertEqual(reply["status"], "ok")
        shown = [content["data"] for kind, content in outputs if kind == "display_data"]
        self.assertEqual(len(shown), 1)
        html = shown[0]["text/html"]
        self.assertEqual(html.count("<tr>"), 4)
        self.assertEqual(html.count("<td "), 8)
        self.assertIn(">TPU 0</td>", html)
        self.assertTrue(shown[0]["text/plain"].startswith("┌"))

    def test_completion(self):
        self.execute("import jax.numpy as jnp\nmy_value = 1")
        reply = self.client.complete("jnp.si", 6, reply=True, timeout=TIMEOUT)["content"]
        self.assertIn("sin", reply["matches"])
        self.assertEqual((reply["cursor_start"], reply["cursor_end"]), (4, 6))
        reply = self.client.complete("x = my_v", 8, reply=True, timeout=TIMEOUT)["content"]
        self.assertEqual(reply["matches"], ["my_value"])

    def test_inspection_shows_the_sharded_type(self):
        self.execute("import jax\njax.set_mesh(jax.make_mesh((4, 2), ('X', 'Y')))\n"
                     "xs = jax.numpy.zeros((8, 2), out_sharding=jax.P('X', 'Y'))")
        for code, cursor in [("xs", 1), ("print(xs)", 8), ("jax.numpy.sum(xs", 16)]:
            reply = self.client.inspect(code, cursor, reply=True, timeout=TIMEOUT)["content"]
            self.assertTrue(reply["found"], code)
            self.assertEqual(reply["data"]["text/plain"], "xs: float32[8@X,2@Y]", code)
        reply = self.client.inspect("nothing_here", 3, reply=True, timeout=TIMEOUT)["content"]
        self.assertFalse(reply["found"])

    def test_is_complete(self):
        reply = self.reply(self.client.is_complete("def f():"))
        self.assertEqual((reply["status"], reply["indent"]), ("incomplete", "    "))
        reply = self.reply(self.client.is_complete("x = 1"))
        self.assertEqual(reply["status"], "complete")

    def test_interrupt(self):
        # stop_on_error=False: else the kernel aborts the requests that
        # follow the interrupted one for a moment (ipykernel's abort window).
        message_id = self.client.execute("while True:\n    pass", stop_on_error=False)
        while True:  # wait until the cell runs
            message = self.client.get_iopub_msg(timeout=TIMEOUT)
            if (message["parent_header"].get("msg_id") == message_id and message["msg_type"] == "status"
                    and message["content"]["execution_state"] == "busy"):
                break
        time.sleep(0.3)
        self.manager.interrupt_kernel()
        reply = self.reply(message_id)
        self.assertEqual((reply["status"], reply["ename"]), ("error", "KeyboardInterrupt"))
        reply, outputs = self.execute("print('still here')")
        self.assertEqual(self.stdout(outputs), "still here\n", (reply, outputs))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--jupyter-path", required=True)
    args, rest = parser.parse_known_args()
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [args.jupyter_path, os.environ.get("JUPYTER_PATH")]))
    unittest.main(argv=[sys.argv[0]] + rest)
