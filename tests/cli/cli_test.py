#!/usr/bin/env python3
"""What the command line does that .shl expectation comments cannot say:
--version, --help, exit status 2 for usage and I/O errors, the JSON form of
`check`, the text form's caret, the traceback of an uncaught error, program
output coming before diagnostics, colour only on a terminal without NO_COLOR,
the --trace file (Chrome trace JSON, one track and one memory counter per
device) and --profile in
run and check.

Usage: cli_test.py --bin build/shardlang
"""
import argparse
import json
import os
import pty
import subprocess
import sys
import tempfile

failures = []


def expect(condition, what, detail=""):
    if not condition:
        failures.append(f"{what}\n      {detail}" if detail else what)


def shardlang(*arguments, env=None, stderr=subprocess.PIPE):
    done = subprocess.run([BINARY, *arguments], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr,
                          env=env, timeout=60)
    return done.returncode, done.stdout.decode(), (done.stderr or b"").decode()


def write(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def test_version_and_help():
    status, out, err = shardlang("--version")
    expect((status, out) == (0, "shardlang 0.1.0\n"), "--version prints `shardlang 0.1.0`", f"{status} {out!r} {err!r}")
    status, out, _ = shardlang("--help")
    expect(status == 0, "--help exits 0")
    for piece in ["usage: shardlang", "run FILE", "check FILE", "--platform tpu|cpu", "--devices N",
                  "--chip", "--host-memory SIZE", "--format text|json", "--profile", "--trace OUT.json"]:
        expect(piece in out, f"--help mentions {piece!r}", out)


def test_usage_and_io_errors(folder):
    missing = os.path.join(folder, "no_such_file.shl")
    for arguments in (["run", missing], [missing], ["check", missing], ["check", "--format", "json", missing]):
        status, out, err = shardlang(*arguments)
        expect(status == 2, f"{arguments[:-1]} on a missing file exits 2", f"status {status}, stderr {err!r}")
        expect("no_such_file.shl" in err and "No such file" in err, f"{arguments[:-1]}: the message names the file",
               err)
        expect(out == "", f"{arguments[:-1]}: nothing on stdout for a missing file", out)
    for arguments, message in ((["--bogus"], "unknown flag"), (["--devices", "zero"], "--devices"),
                               (["run"], "missing FILE"), (["--chip", "v1", "run", "a.shl"], "--chip")):
        status, _, err = shardlang(*arguments)
        expect(status == 2 and message in err, f"{arguments} is a usage error (exit 2, {message!r})",
               f"status {status}, stderr {err!r}")


def test_check_json(folder):
    broken = write(folder, "broken.shl", "x = 1\nif x\n    print(x)\n")
    status, out, err = shardlang("check", "--format", "json", broken)
    lines = out.splitlines()
    expect(status == 1, "check --format json on a syntax error exits 1", f"status {status}, stderr {err!r}")
    expect(len(lines) == 1, "check --format json prints exactly one line for one syntax error", out)
    if not lines:
        return
    try:
        diagnostic = json.loads(lines[0])
    except json.JSONDecodeError as error:
        expect(False, "check --format json prints JSON", f"{error}: {lines[0]!r}")
        return
    fields = {"file": str, "line": int, "column": int, "end_line": int, "end_column": int, "severity": str,
              "code": str, "message": str, "notes": list, "hint": str}
    for name, kind in fields.items():
        expect(isinstance(diagnostic.get(name), kind), f"JSON field {name!r} is a {kind.__name__}", lines[0])
    expect(diagnostic.get("file") == broken and diagnostic.get("line") == 2, "the syntax error is at broken.shl:2",
           lines[0])
    expect(diagnostic.get("severity") == "error" and diagnostic.get("code") == "syntax",
           "a syntax error has severity error and code syntax", lines[0])


def test_check_text_and_several_files(folder):
    first = write(folder, "first.shl", "y = (1,\n")
    second = write(folder, "second.shl", "def f(:\n    pass\n")
    fine = write(folder, "fine.shl", "z = 3\n")
    status, out, err = shardlang("check", first, fine, second)
    expect(status == 1, "check of several files exits 1 when one has errors", f"{status} {err!r}")
    expect(f"{first}:" in err and f"{second}:1:" in err, "check reports the errors of every file", err)
    expect(" | def f(:" in err and "^" in err, "the text form shows the source line and a caret", err)
    expect(out == "", "check --format text prints nothing on stdout", out)
    status, _, err = shardlang("check", fine)
    expect((status, err) == (0, ""), "check of a correct file exits 0 silently", f"{status} {err!r}")
    status, _, err = shardlang("check", fine, os.path.join(folder, "absent.shl"), second)
    expect(status == 2 and f"{second}:1:" in err, "a missing file among several: exit 2, the others still checked",
           f"{status} {err!r}")


def test_uncaught_error_traceback(folder):
    program = write(folder, "traceback.shl",
                    "def inner(x):\n"
                    "    return x + undefined_name\n"
                    "def outer():\n"
                    "    return inner(1)\n"
                    "print('start')\n"
                    "outer()\n"
                    "print('never')\n")
    done = subprocess.run([BINARY, "run", program], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=60)
    both = done.stdout.decode()
    expect(done.returncode == 1, "an uncaught error exits 1", both)
    expect(both.startswith("start\n"), "program output is flushed before the diagnostic", both)
    expect("never" not in both, "the script stops at the uncaught error", both)
    frames = [f'  File "{program}", line 6, in <module>', f'  File "{program}", line 4, in outer',
              f'  File "{program}", line 2, in inner']
    expect("Traceback (most recent call last):\n" in both, "a traceback header precedes the error", both)
    positions = [both.find(frame) for frame in frames]
    expect(all(p >= 0 for p in positions) and positions == sorted(positions),
           "the traceback lists the frames outermost first", both)
    expect(f"{program}:2:" in both and "name 'undefined_name' is not defined" in both,
           "the diagnostic is located in the innermost frame", both)


def test_colour(folder):
    broken = write(folder, "colour.shl", "print(undefined_name)\n")
    environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    for no_color in (None, "1"):
        env = dict(environment, **({"NO_COLOR": no_color} if no_color else {}))
        controller, terminal = pty.openpty()
        try:
            status, _, _ = shardlang("run", broken, env=env, stderr=terminal)
        finally:
            os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
        os.close(controller)
        coloured = b"\x1b[" in shown
        if no_color:
            expect(not coloured, "NO_COLOR turns colour off on a terminal", repr(shown))
        else:
            expect(coloured, "diagnostics are coloured on a terminal", repr(shown))
    _, _, err = shardlang("run", broken, env=environment)
    expect("\x1b[" not in err, "no colour when stderr is not a terminal", repr(err))


def test_trace_and_profile(folder):
    script = write(folder, "traced.shl", """import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P, NamedSharding
mesh = jax.make_mesh((2, 4), ('X', 'Y'))
a = jax.device_put(jnp.ones((64, 128)), NamedSharding(mesh, P('X', 'Y')))
w = jax.device_put(jnp.ones((128, 256)), NamedSharding(mesh, P(None, 'Y')))
c = a @ w
print(float(jnp.sum(c)))
""")
    trace_path = os.path.join(folder, "out.json")
    status, out, err = shardlang("run", "--trace", trace_path, script)
    expect((status, out) == (0, "2097152.0\n"), "run --trace runs the program and prints only its output",
           f"{status} {out!r} {err!r}")
    try:
        with open(trace_path, encoding="utf-8") as f:
            trace = json.load(f)
    except (OSError, ValueError) as error:
        expect(False, "run --trace writes a JSON file", str(error))
        return
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else []
    tracks = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    expect(tracks == {device: f"TPU {device}" for device in range(8)}, "one track per simulated device", tracks)
    slices = [e for e in events if e.get("ph") == "X"]
    expect(all({"name", "ts", "dur", "pid", "tid"} <= e.keys() for e in slices), "complete events carry ts, dur, pid, tid")
    gathers = [e for e in slices if e["name"] == "all-gather"]
    expect(sorted(e["pid"] for e in gathers) == list(range(8)), "the dot's all-gather is a slice on every device",
           gathers[:2])
    expect(all(e["args"].get("source") == "traced.shl:7" for e in gathers), "a slice names its source line",
           gathers[:1])
    reduces = [e for e in slices if e["name"] == "all-reduce"]
    expect(len(reduces) == 8 and all(e["args"]["source"] == "traced.shl:8" for e in reduces),
           "the sum's all-reduce is a slice on every device", reduces[:1])
    expect({e["tid"] for e in gathers} != {e["tid"] for e in slices if e["name"] == "dot_general"},
           "communication and compute are separate threads of a device's track")

    status, out, err = shardlang("run", "--profile", script)
    expect(status == 0 and out.startswith("2097152.0\nprofile on v5e, 8 devices:") and "traced.shl:7" in out
           and "not modelled:" in out, "run --profile prints the table after the program's output", out + err)

    status, _, err = shardlang("run", "--trace", os.path.join(folder, "no_such_dir", "t.json"), script)
    expect(status == 2 and "cannot write" in err, "an unwritable --trace file is an I/O error (exit 2)", err)

    transformer = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                               "transformer_96_layers.shl")
    status, out, err = shardlang("check", "--profile", "--chip", "v5p", "--devices", "256", transformer)
    expect(status == 0 and "estimated step time" in out and "dot_general" in out and "all-gather" in out,
           "check --profile prints the estimated step time and the top lines of a program, with no data",
           out[:400] + err[:400])


def test_trace_memory_counters(folder):
    # Each device's memory counter track steps at every change of its bytes
    # in use, on the trace's clock. Shards by hand: a f32[64,128] split
    # 2 x 4 is f32[32,32] on each of the 8 devices, 4096 bytes; a f32[16,16]
    # replicated on devices 0 and 1 is 1024 bytes on each of them.
    script = write(folder, "memory.shl", """import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
mesh = jax.make_mesh((2, 4), ('X', 'Y'))
pair = Mesh(np.array(jax.devices()[:2]), ('Z',))
a = jnp.zeros((64, 128), jnp.float32, out_sharding=NamedSharding(mesh, P('X', 'Y')))
r = jnp.zeros((16, 16), jnp.float32, out_sharding=NamedSharding(pair, P()))
del a
del r
x = jnp.zeros((64, 128), jnp.float32, out_sharding=NamedSharding(mesh, P('X', 'Y')))
y = jax.jit(lambda v: jnp.sin(v) * 2.0)(x)
""")
    trace_path = os.path.join(folder, "memory.json")
    status, out, err = shardlang("run", "--trace", trace_path, script)
    expect(status == 0, "run --trace of a program that allocates", f"{status} {out!r} {err!r}")
    try:
        with open(trace_path, encoding="utf-8") as f:
            events = json.load(f)["traceEvents"]
    except (OSError, ValueError, KeyError) as error:
        expect(False, "run --trace writes a JSON trace", str(error))
        return
    counters = {device: [e for e in events if e.get("ph") == "C" and e.get("pid") == device] for device in range(8)}
    expect(all(e["name"] == f"memory TPU {d}" and set(e["args"]) == {"bytes"} and isinstance(e["ts"], (int, float))
               for d, track in counters.items() for e in track),
           "a device's counter events are named by its track, with its bytes in args", counters[0][:2])
    expect(all(all(a["ts"] <= b["ts"] for a, b in zip(track, track[1:])) for track in counters.values()),
           "each device's counter goes forward in time")
    values = {device: [e["args"]["bytes"] for e in track] for device, track in counters.items()}
    # a made, r made (devices 0 and 1 only), a deleted, r deleted.
    for device in range(8):
        before_jit = [4096, 5120, 1024, 0] if device < 2 else [4096, 0]
        expect(values[device][:len(before_jit)] == before_jit,
               f"device {device}'s counter steps by its shards' bytes as arrays come and go", values[device])
    # Inside the jitted call the counter steps at its equations: sin's result
    # (4096) when sin starts; the product's (4096) and 2.0 moved onto the mesh
    # (4 bytes) when the multiply starts, beside x.
    for device in (0, 5):
        starts = {e["name"]: e["ts"] for e in events if e.get("ph") == "X" and e.get("pid") == device}
        at = {}
        for e in counters[device]:
            at.setdefault(e["ts"], []).append(e["args"]["bytes"])
        scalar = 4 if device == 0 else 0  # 2.0 is made on device 0 before the call
        expect(at.get(starts.get("sin"), [None])[-1] == 2 * 4096 + scalar and
               max(at.get(starts.get("multiply"), [0])) == 3 * 4096 + 4 + scalar,
               f"device {device}: a jitted program's buffers step with its equations' start times",
               f"{starts} {at}")


def test_oom_in_jit_names_the_allocating_line(folder):
    # A jitted program that does not fit stops at its call (as XLA reports
    # it), with a note at the body's line that allocates and the largest
    # live buffers with the lines that made them: the same notes in run and check.
    script = write(folder, "oom.shl", """import jax
import jax.numpy as jnp
def f(a):
    t = a * a
    u = t + a
    return u * a
a = jnp.ones((1024, 1024))
b = jnp.ones((1024, 1024))
c = jax.jit(f)(a)
""")
    notes = {}
    for mode in ("run", "check"):
        status, _, err = shardlang(mode, "--devices", "1", "--hbm", "14M", script)
        notes[mode] = [line for line in err.splitlines() if "note:" in line]
        expect(status == 1 and "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4194304 bytes" in err,
               f"{mode}: a jitted program that does not fit is RESOURCE_EXHAUSTED", err)
    expect(notes["run"][:1] == [f"{script}:5:5: note: the jitted program allocates it here"],
           "the note names the line in the body that allocates", notes["run"])
    expect(f"{script}:4:5: note: float32[1024,1024]: 4194304 bytes (4.00 MiB)" in notes["run"],
           "a program's live buffer is named by its line in the body", notes["run"])
    expect(notes["run"] == notes["check"], "run and check give the same notes", notes)


def main():
    global BINARY
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    BINARY = os.path.abspath(parser.parse_args().bin)
    with tempfile.TemporaryDirectory() as folder:
        test_version_and_help()
        test_usage_and_io_errors(folder)
        test_check_json(folder)
        test_oom_in_jit_names_the_allocating_line(folder)
        test_check_text_and_several_files(folder)
        test_uncaught_error_traceback(folder)
        test_colour(folder)
        test_trace_and_profile(folder)
        test_trace_memory_counters(folder)
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    if failures:
        sys.exit(1)
    print("ok: command line")


if __name__ == "__main__":
    main()
