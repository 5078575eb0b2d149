#!/usr/bin/env python3
"""The shardlang Python module (python/module.cpp): running and checking
source, diagnostics and errors as Python objects, values and NumPy arrays
both ways (a sharded computation read back equal to NumPy's), host
functions, bfloat16, and Ctrl-C.

Run with PYTHONPATH naming the folder that holds the package (build/python).
"""
import os
import signal
import tempfile
import threading
import unittest

import numpy as np

import shardlang

MESH = "import jax\nimport jax.numpy as jnp\njax.set_mesh(jax.make_mesh((4, 2), ('X', 'Y')))\n"


def interpreter(**options):
    printed = []
    interp = shardlang.Interpreter(output=printed.append, **options)
    return interp, printed


class RunAndCheck(unittest.TestCase):
    def test_print_goes_to_the_output_callback(self):
        interp, printed = interpreter()
        interp.run("print(1 + 2, 'x')")
        self.assertEqual("".join(printed), "3 x\n")

    def test_interactive_run_echoes_through_display(self):
        shown = []
        interp = shardlang.Interpreter(output=lambda text: None, display=lambda *args: shown.append(args))
        interp.run("1 + 2\nNone\n'a'", interactive=True)
        self.assertEqual(shown, [("value", "3\n", None), ("value", "'a'\n", None)])

    def test_error_is_an_exception_carrying_the_diagnostic(self):
        interp, _ = interpreter()
        with self.assertRaises(shardlang.Error) as caught:
            interp.run("def f():\n    return undefined_name + 1\nf()\n", name="model.shl")
        error = caught.exception
        self.assertEqual(error.exception_type, "NameError")
        d = error.diagnostic
        self.assertEqual((d.file, d.line, d.column, d.code, d.severity), ("model.shl", 2, 12, "name", "error"))
        self.assertEqual(d.message, "NameError: name 'undefined_name' is not defined")
        self.assertEqual(d.traceback, ["model.shl:3, in <module>", "model.shl:2, in f"])
        self.assertIn("    2 |     return undefined_name + 1\n", str(error))
        self.assertIn("^^^^^^^^^^^^^^", str(error))

    def test_sharding_error_has_its_code_and_hint(self):
        interp, _ = interpreter()
        interp.run(MESH)
        with self.assertRaises(shardlang.Error) as caught:
            interp.run("a = jnp.zeros((8, 4), out_sharding=jax.P(None, 'X'))\n"
                       "b = jnp.zeros((4, 2), out_sharding=jax.P('X', None))\n"
                       "c = a @ b\n")
        self.assertEqual(caught.exception.diagnostic.code, "sharding/ambiguous-contraction")
        self.assertEqual(caught.exception.diagnostic.line, 3)

    def test_check_returns_diagnostics(self):
        interp, printed = interpreter()
        diagnostics = interp.check("x = 1\ny = x +\n", name="broken.shl")
        self.assertEqual(len(diagnostics), 1)
        d = diagnostics[0]
        self.assertEqual((d.file, d.line, d.code, d.severity), ("broken.shl", 2, "syntax", "error"))
        self.assertIsInstance(d.hint, str)
        self.assertEqual(interp.check("x = 1\n"), [])
        self.assertEqual(printed, [])

    def test_type_of_and_completion(self):
        interp, _ = interpreter()
        interp.run(MESH + "x = jnp.zeros((8, 2), out_sharding=jax.P('X', 'Y'))\n")
        self.assertEqual(interp.type_of("x"), "float32[8@X,2@Y]")
        self.assertEqual(interp.type_of("x.shape"), "tuple")
        self.assertIn("x", interp.names())
        self.assertIn("sin", interp.members("jnp"))
        self.assertTrue(shardlang.Interpreter.is_complete("x = 1\n"))
        self.assertFalse(shardlang.Interpreter.is_complete("def f():\n"))


class Values(unittest.TestCase):
    def test_host_values_round_trip(self):
        interp, _ = interpreter()
        for value in [None, True, 7, 2.5, "text", [1, "a", None], (1, (2.0, False))]:
            interp.set("v", value)
            self.assertEqual(interp.get("v"), value)

    def test_missing_global_is_a_key_error(self):
        interp, _ = interpreter()
        with self.assertRaises(KeyError):
            interp.get("nothing")

    def test_values_python_has_no_type_for_go_back_as_they_are(self):
        interp, printed = interpreter()
        interp.run("def f(x):\n    return x + 1\n")
        f = interp.get("f")
        self.assertIsInstance(f, shardlang.Value)
        self.assertTrue(repr(f).startswith("<function f"))
        interp.set("g", f)
        interp.run("print(g(1))")
        self.assertEqual("".join(printed), "2\n")

    def test_unsupported_value_is_a_type_error(self):
        interp, _ = interpreter()
        with self.assertRaises(TypeError):
            interp.set("v", {"a": 1})
        with self.assertRaises(TypeError):
            interp.set("v", np.zeros(3, dtype=np.uint8))


class Arrays(unittest.TestCase):
    def test_sharded_computation_reads_back_equal_to_numpy(self):
        interp, _ = interpreter()
        interp.run(MESH)
        rng = np.random.default_rng(0)
        x = rng.standard_normal((16, 8), dtype=np.float32)
        w = rng.standard_normal((8, 4), dtype=np.float32)
        interp.set("x", x, spec=("X", "Y"))
        interp.set("w", w)
        self.assertEqual(interp.type_of("x"), "float32[16@X,8@Y]")
        interp.run("y = jnp.dot(jnp.sin(x), w, out_sharding=jax.P('X', None))")
        self.assertEqual(interp.type_of("y"), "float32[16@X,4]")
        y = interp.get("y")
        self.assertEqual((y.dtype, y.shape), (np.float32, (16, 4)))
        np.testing.assert_allclose(y, np.sin(x) @ w, rtol=1e-5, atol=1e-5)

    def test_every_spec_reads_back_its_input(self):
        interp, _ = interpreter()
        interp.run(MESH)
        x = np.arange(48, dtype=np.float32).reshape(8, 6)
        for spec in [("X",), (None, "Y"), (("X", "Y"),), ("Y", None), ()]:
            interp.set("x", x, spec=spec)
            np.testing.assert_array_equal(interp.get("x"), x)

    def test_replicated_array_is_a_read_only_view(self):
        interp, _ = interpreter()
        interp.set("a", np.arange(6, dtype=np.int32).reshape(2, 3))
        interp.run("import jax.numpy as jnp\nb = a * 10")
        b = interp.get("b")
        np.testing.assert_array_equal(b, np.arange(6).reshape(2, 3) * 10)
        self.assertFalse(b.flags.writeable)
        self.assertFalse(b.flags.owndata)  # a view of the interpreter's buffer
        del interp
        np.testing.assert_array_equal(b, np.arange(6).reshape(2, 3) * 10)  # outlives the interpreter

    def test_strided_input(self):
        interp, _ = interpreter()
        interp.run(MESH)
        base = np.arange(48, dtype=np.float32).reshape(6, 8)
        interp.set("t", base.T, spec=("X", "Y"))
        np.testing.assert_array_equal(interp.get("t"), base.T)
        interp.set("r", base[::-1, ::2])
        np.testing.assert_array_equal(interp.get("r"), base[::-1, ::2])

    def test_dtypes(self):
        interp, _ = interpreter()
        for array, dtype in [(np.array([True, False]), np.bool_), (np.array([-3, 7], np.int8), np.int8),
                             (np.array([1, 2], np.int32), np.int32), (np.array([4000000000], np.uint32), np.uint32),
                             (np.array([1.5, -2], np.float16), np.float16),
                             (np.array([1.5, -2], np.float32), np.float32),
                             # 64-bit types as jnp.asarray takes them with x64 off
                             (np.array([1, 2], np.int64), np.int32), (np.array([0.1], np.float64), np.float32)]:
            interp.set("a", array)
            back = interp.get("a")
            self.assertEqual(back.dtype, dtype)
            np.testing.assert_array_equal(back, array.astype(dtype))

    def test_bfloat16_as_raw_bits_without_ml_dtypes(self):
        interp, printed = interpreter()
        bits = np.array([0x3F80, 0xC000, 0x4049], dtype=np.uint16)  # 1, -2, 3.140625
        interp.set("h", bits, dtype="bfloat16")
        interp.run("print(h.dtype, h.astype('float32'))")
        self.assertEqual("".join(printed), "bfloat16 [ 1.       -2.        3.140625]\n")
        back = interp.get("h")
        try:
            import ml_dtypes
            self.assertEqual(back.dtype, ml_dtypes.bfloat16)
            np.testing.assert_array_equal(back.view(np.uint16), bits)
        except ImportError:
            self.assertEqual(back.dtype, np.uint16)
            np.testing.assert_array_equal(back, bits)

    def test_spec_without_a_mesh_is_an_error(self):
        interp, _ = interpreter()
        with self.assertRaises(shardlang.Error) as caught:
            interp.set("x", np.zeros(8, np.float32), spec=("X",))
        self.assertEqual(caught.exception.diagnostic.code, "sharding/no-mesh")

    def test_host_functions_take_and_return_arrays(self):
        interp, printed = interpreter()
        interp.define("host_cumsum", lambda a, scale=1: np.cumsum(a) * scale)
        interp.define("host_fail", lambda: 1 / 0)
        interp.run("import jax.numpy as jnp\nprint(host_cumsum(jnp.arange(4), scale=2) + 1)\n"
                   "try:\n    host_fail()\nexcept ZeroDivisionError as e:\n    print('caught:', e)\n")
        self.assertEqual("".join(printed), "[ 1  3  7 13]\ncaught: division by zero\n")


class Modules(unittest.TestCase):
    def test_module_path_and_files_are_on_by_default(self):
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "helpers.py"), "w") as f:
                f.write("def twice(x):\n    return 2 * x\n")
            notes = os.path.join(folder, "notes.txt")
            interp, printed = interpreter(module_path=[folder])
            interp.run(f"import helpers, pathlib\npathlib.Path({notes!r}).write_text('hi')\n"
                       f"print(helpers.twice(4), open({notes!r}).read(), helpers.__name__)")
            self.assertEqual("".join(printed), "8 hi helpers\n")

    def test_module_loader_serves_modules_and_packages(self):
        served = {"mem": "from mem.inner import VALUE\n", "mem.inner": ("VALUE = 41 + 1\n", "mem/inner.py")}
        asked = []

        def loader(name):
            asked.append(name)
            source = served.get(name)
            return (source, "mem/__init__.py", True) if name == "mem" else source

        interp, printed = interpreter(module_loader=loader)
        interp.run("import mem\nprint(mem.VALUE, mem.inner.__file__)")
        self.assertEqual("".join(printed), "42 mem/inner.py\n")
        self.assertEqual(asked, ["mem", "mem.inner"])

    def test_file_access_off(self):
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "helpers.py"), "w") as f:
                f.write("X = 1\n")
            interp, _ = interpreter(module_path=[folder], file_access=False,
                                    module_loader=lambda name: "Y = 2\n" if name == "served" else None)
            interp.run("import served\nassert served.Y == 2")
            with self.assertRaises(shardlang.Error) as caught:
                interp.run("import helpers")
            self.assertEqual(caught.exception.exception_type, "ModuleNotFoundError")
            self.assertIn("file access is off", str(caught.exception))
            with self.assertRaises(shardlang.Error) as caught:
                interp.run(f"open({os.path.join(folder, 'helpers.py')!r})")
            self.assertEqual(caught.exception.exception_type, "PermissionError")


class Interrupt(unittest.TestCase):
    def test_sigint_interrupts_a_running_script(self):
        interp, _ = interpreter()
        timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        with self.assertRaises(KeyboardInterrupt):
            interp.run("while True:\n    pass\n")
        timer.join()
        interp.run("x = 1")  # the interpreter goes on
        self.assertEqual(interp.get("x"), 1)


if __name__ == "__main__":
    unittest.main()
