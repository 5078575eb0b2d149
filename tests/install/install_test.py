#!/usr/bin/env python3
"""Install test: `cmake --install` into a temporary prefix, then build the
embedding example (examples/embed) against that prefix as an outside project
would, once with find_package(shardlang CONFIG) and once with pkg-config, and
run both. Each must print what the in-tree build of the example prints.

With --python-dir (where the install puts the Python package, when the
build has the Python module), the installed module must import from the
prefix and run a script, and the installed kernel spec must name it.

Usage: install_test.py --build BUILD_DIR --example EMBED_EXAMPLE_BINARY
                       [--cxx CXX] [--launcher CCACHE] [--generator NINJA]
                       [--python PYTHON --python-dir RELATIVE_DIR]
"""
import json
import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "embed"

# What the install puts under the prefix (relative; lib may be lib64 or a
# multiarch folder: found by glob).
EXPECTED = ["bin/shardlang", "include/shardlang/shardlang.hpp", "lib*/libshardlang.a",
            "lib*/cmake/shardlang/shardlangConfig.cmake", "lib*/cmake/shardlang/shardlangConfigVersion.cmake",
            "lib*/cmake/shardlang/shardlangTargets.cmake", "lib*/pkgconfig/shardlang.pc"]


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"FAIL: {shlex.join(map(str, command))} exited {result.returncode}\n{result.stdout}{result.stderr}")
    return result.stdout


def same_output(what, binary, expected):
    actual = run([binary])
    if actual != expected:
        sys.exit(f"FAIL: {what} printed\n{actual}\ninstead of what the in-tree example prints\n{expected}")
    print(f"ok: {what}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True, type=Path)
    parser.add_argument("--example", required=True, type=Path, help="the in-tree build of examples/embed")
    parser.add_argument("--cxx", default=os.environ.get("CXX", "c++"))
    parser.add_argument("--launcher", default="", help="a compiler launcher such as ccache")
    parser.add_argument("--generator", default="")
    parser.add_argument("--python", default="")
    parser.add_argument("--python-dir", default="")
    args = parser.parse_args()
    expected = run([args.example])

    with tempfile.TemporaryDirectory(prefix="shardlang-install-") as temporary:
        prefix = Path(temporary) / "prefix"
        run(["cmake", "--install", args.build, "--prefix", prefix])
        for pattern in EXPECTED:
            if not list(prefix.glob(pattern)):
                sys.exit(f"FAIL: the install has no {pattern}")
        version = run([prefix / "bin" / "shardlang", "--version"])
        print(f"ok: installed files; bin/shardlang --version: {version.strip()}")

        # An outside CMake project: find_package(shardlang CONFIG) through CMAKE_PREFIX_PATH.
        consumer = Path(temporary) / "find-package"
        configure = ["cmake", "-S", EXAMPLE, "-B", consumer, f"-DCMAKE_PREFIX_PATH={prefix}",
                     f"-DCMAKE_CXX_COMPILER={args.cxx}", "-DCMAKE_BUILD_TYPE=Release"]
        if args.generator:
            configure += ["-G", args.generator]
        if args.launcher:
            configure.append(f"-DCMAKE_CXX_COMPILER_LAUNCHER={args.launcher}")
        run(configure)
        run(["cmake", "--build", consumer])
        same_output("find_package(shardlang) consumer", consumer / "embed_example", expected)

        # The same program built by hand with pkg-config's flags.
        environment = dict(os.environ, PKG_CONFIG_PATH=os.pathsep.join(
            str(folder.parent) for folder in prefix.glob("lib*/pkgconfig/shardlang.pc")))
        flags = run(["pkg-config", "--cflags", "--libs", "shardlang"], env=environment).split()
        binary = Path(temporary) / "pkg-config-consumer"
        compiler = ([args.launcher] if args.launcher else []) + [args.cxx]
        run(compiler + ["-std=c++20", "-O1", EXAMPLE / "main.cpp", "-o", binary] + flags)
        same_output("pkg-config consumer", binary, expected)
        if args.python_dir:
            check_python(args.python, prefix, prefix / args.python_dir)
    print("2 consumers built and run against the installed prefix")


def check_python(python, prefix, package_parent):
    script = ("import shardlang, numpy as np\n"
              "i = shardlang.Interpreter(output=lambda t: None)\n"
              "i.set('x', np.arange(4, dtype=np.int32))\n"
              "i.run('y = x * 2')\n"
              "print(shardlang.__file__, i.get('y').tolist())\n")
    printed = run([python, "-c", script], env=dict(os.environ, PYTHONPATH=str(package_parent)), cwd="/")
    if not printed.startswith(str(package_parent)) or not printed.rstrip().endswith("[0, 2, 4, 6]"):
        sys.exit(f"FAIL: the installed Python module printed {printed!r}")
    spec = json.loads((prefix / "share" / "jupyter" / "kernels" / "shardlang" / "kernel.json").read_text())
    if spec["env"]["PYTHONPATH"] != str(package_parent) or spec["argv"][:3] != [python, "-m", "shardlang.kernel"]:
        sys.exit(f"FAIL: the installed kernel spec is {spec!r}")
    print("ok: the installed Python module and kernel spec")


if __name__ == "__main__":
    main()
