#!/usr/bin/env python3
"""`shardlang lsp` driven by a scripted JSON-RPC session: initialization,
diagnostics with related information and the hint on open/change/save, hover,
inlay hints, code actions (applied, the error then gone), completion of
module members, mesh axes inside P(...) and names, signature help, the
configuration files, UTF-8 and UTF-16 positions, a program that loops
forever (cut off by the time limit; a change interrupts it), cancellation,
malformed messages (LSP errors, the server keeps answering) and the
shutdown/exit sequence. Every wait is on a condition with a deadline.

Usage: lsp_session_test.py --bin build/shardlang
"""
import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_client import Client, uri  # noqa: E402

failures = []

AMBIGUOUS = """import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P, AxisType

jax.set_mesh(jax.make_mesh((2, 4), ('X', 'Y'), axis_types=(AxisType.Explicit,) * 2))
In = jnp.zeros((8, 2048), jnp.bfloat16, out_sharding=P('X', 'Y'))
W = jnp.zeros((2048, 8192), jnp.bfloat16, out_sharding=P('Y', None))
out = jnp.einsum('bd,df->bf', jnp.square(In), W)
"""

LOOP = """import jax.numpy as jnp
x = jnp.zeros((4,))
while True:
    try:
        x = x + 1
    except Exception:
        pass
"""


def expect(condition, what, detail=""):
    if not condition:
        failures.append(f"{what}\n      {detail}" if detail else what)
    return condition


def write(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def hint_choices(message):
    """The out_sharding= arguments the hint lists, in its order."""
    choices = []
    for line in message[message.find("hint:"):].splitlines()[1:]:
        line = line.strip()
        if not line.startswith("out_sharding="):
            continue
        depth = 0
        for end, c in enumerate(line):
            depth += {"(": 1, ")": -1}.get(c, 0)
            if c == ")" and depth == 0:
                choices.append(line[:end + 1])
                break
    return choices


def apply_edit(text, edit):
    """Applies one TextEdit (UTF-16 positions; the test text is ASCII)."""
    lines = text.split("\n")
    def offset(position):
        return sum(len(line) + 1 for line in lines[:position["line"]]) + position["character"]
    start, end = offset(edit["range"]["start"]), offset(edit["range"]["end"])
    return text[:start] + edit["newText"] + text[end:]


def test_before_initialize(binary):
    client = Client(binary)
    try:
        response = client.response(client.send_request("textDocument/hover", {}))
        expect(response.get("error", {}).get("code") == -32002, "a request before initialize: ServerNotInitialized",
               response)
        result = client.initialize()
        capabilities = result["capabilities"]
        for name in ("hoverProvider", "inlayHintProvider", "codeActionProvider", "completionProvider",
                     "signatureHelpProvider", "textDocumentSync"):
            expect(name in capabilities, f"initialize announces {name}", capabilities)
        expect(capabilities.get("positionEncoding") == "utf-16", "UTF-16 positions unless the client offers UTF-8",
               capabilities)
        expect(result.get("serverInfo", {}).get("name") == "shardlang", "serverInfo names shardlang", result)
        again = client.response(client.send_request("initialize", {"capabilities": {}}))
        expect(again.get("error", {}).get("code") == -32600, "a second initialize is an invalid request", again)
        client.notify("exit")
        expect(client.process.wait(20) == 1, "exit without shutdown: status 1")
    finally:
        client.kill()


def test_diagnostics_hover_hints_actions(binary, folder):
    path = write(folder, "model.shl", AMBIGUOUS)
    client = Client(binary, "--platform", "tpu", "--devices", "8")
    try:
        client.initialize(folder)
        client.open(path, AMBIGUOUS, version=1)
        diagnostics, _ = client.diagnostics(uri(path), 1)
        if not expect(len(diagnostics) == 1, "one diagnostic for the ambiguous contraction", diagnostics):
            return
        d = diagnostics[0]
        expect(d["code"] == "sharding/ambiguous-contraction" and d["severity"] == 1 and d["source"] == "shardlang",
               "its code, severity and source", d)
        expect(d["range"] == {"start": {"line": 7, "character": 0}, "end": {"line": 7, "character": 48}},
               "its range is the statement of the einsum call", d["range"])
        expect("Contracting dimensions are sharded and it is ambiguous" in d["message"], "JAX's message", d["message"])
        expect("operands are bf16[8@X,2048@Y] and bf16[2048@Y,8192]" in d["message"],
               "the operand types (a note without a location) join the message", d["message"])
        expect("hint: choose the output sharding" in d["message"] and "out_sharding=P('X', 'Y')" in d["message"],
               "the hint joins the message", d["message"])
        related = d.get("relatedInformation", [])
        expect(any(r["message"] == "`In` got its sharding here" and r["location"]["uri"] == uri(path)
                   and r["location"]["range"]["start"]["line"] == 5 for r in related),
               "related information: where `In` got its sharding", related)

        # Hover over `In` inside jnp.square(In): its type, shard and the line's cost.
        hover = client.request("textDocument/hover", {"textDocument": {"uri": uri(path)},
                                                      "position": {"line": 7, "character": 42}})
        text = hover["contents"]["value"] if hover else ""
        expect("In: bf16[8@X,2048@Y]" in text, "hover: the name's sharded type", text)
        expect("per device: bf16[4,512], 4.0 KiB" in text, "hover: one device's shard and its bytes", text)
        expect("line 8, estimated on v5e" in text and "square" in text, "hover: the line's estimated cost", text)
        hover = client.request("textDocument/hover", {"textDocument": {"uri": uri(path)},
                                                      "position": {"line": 6, "character": 20}})
        text = hover["contents"]["value"] if hover else ""
        expect("jnp.zeros((2048, 8192), jnp.bfloat16, out_sharding=P('Y', No …: bf16[2048@Y,8192]" in text,
               "hover inside a call shows the call's type (its text shortened)", text)
        nothing = client.request("textDocument/hover", {"textDocument": {"uri": uri(path)},
                                                        "position": {"line": 0, "character": 3}})
        expect(nothing is None, "hover where no array is: null", nothing)

        hints = client.request("textDocument/inlayHint", {"textDocument": {"uri": uri(path)},
                                                          "range": {"start": {"line": 0, "character": 0},
                                                                    "end": {"line": 8, "character": 0}}})
        labels = [(h["position"]["line"], h["position"]["character"], h["label"]) for h in hints]
        # `out` holds check mode's best guess after the error: replicated.
        expect(labels == [(5, 2, ": bf16[8@X,2048@Y]"), (6, 1, ": bf16[2048@Y,8192]"), (7, 3, ": bf16[8,8192]")],
               "inlay hints after each array assignment", labels)

        actions = client.request("textDocument/codeAction", {
            "textDocument": {"uri": uri(path)},
            "range": {"start": {"line": 7, "character": 0}, "end": {"line": 7, "character": 0}},
            "context": {"diagnostics": diagnostics}})
        titles = [a["title"] for a in actions]
        ranked = hint_choices(d["message"])
        expect(len(ranked) == 3 and len(titles) == 3
               and all(title.startswith(choice + ": ") for title, choice in zip(titles, ranked)),
               "code actions: each legal out_sharding, in the hint's order (cheapest first)", f"{titles} {ranked}")
        expect(sorted(ranked) == ["out_sharding=P('X', 'Y')", "out_sharding=P('X', None)",
                                  "out_sharding=P('X', None, unreduced={'Y'})"], "the three legal choices", ranked)
        expect(all(a["kind"] == "quickfix" for a in actions) and actions[0]["isPreferred"]
               and not actions[1]["isPreferred"], "quick fixes, the cheapest preferred", actions)
        chosen = next((a for a in actions if a["title"].startswith("out_sharding=P('X', 'Y'):")), actions[0])
        edit = chosen["edit"]["changes"][uri(path)][0]
        expect(edit == {"range": {"start": {"line": 7, "character": 47}, "end": {"line": 7, "character": 47}},
                        "newText": ", out_sharding=P('X', 'Y')"}, "the edit inserts the argument", edit)
        fixed = apply_edit(AMBIGUOUS, edit)
        client.change(path, fixed, 2)
        diagnostics, _ = client.diagnostics(uri(path), 2)
        expect(diagnostics == [], "after the fix, no diagnostic", diagnostics)
        hints = client.request("textDocument/inlayHint", {"textDocument": {"uri": uri(path)},
                                                          "range": {"start": {"line": 7, "character": 0},
                                                                    "end": {"line": 7, "character": 80}}})
        expect([h["label"] for h in hints] == [": bf16[8@X,8192@Y]"], "the fixed line's result type", hints)

        # Save re-checks; close clears.
        client.notify("textDocument/didSave", {"textDocument": {"uri": uri(path)}})
        diagnostics, _ = client.diagnostics(uri(path), 2)
        expect(diagnostics == [], "a save publishes the diagnostics again", diagnostics)
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri(path)}})
        diagnostics, _ = client.diagnostics(uri(path))
        expect(diagnostics == [], "closing a document clears its diagnostics", diagnostics)
        expect(client.close() == 0, "shutdown then exit: status 0")
    finally:
        client.kill()


def test_completion_and_signatures(binary, folder):
    path = write(folder, "complete.shl", AMBIGUOUS)
    client = Client(binary, "--devices", "8")
    try:
        client.initialize(folder)
        client.open(path, AMBIGUOUS)
        client.diagnostics(uri(path), 1)
        # The user types on: the document no longer parses, completion still answers.
        typing = AMBIGUOUS + "In\ny = jnp.\nz = jax.sharding.\nv = jnp.einsum('ab', \nw = jnp.zeros((8,), out_sharding=P(\n"
        client.change(path, typing, 2)
        diagnostics, _ = client.diagnostics(uri(path), 2)
        expect(any(d["code"] == "syntax" for d in diagnostics), "the unfinished text is a syntax error", diagnostics)

        def items(line, character):
            result = client.request("textDocument/completion", {"textDocument": {"uri": uri(path)},
                                                                 "position": {"line": line, "character": character}})
            return {item["label"]: item for item in result["items"]}

        members = items(9, 8)
        expect("einsum" in members and members["einsum"]["detail"].startswith("einsum(")
               and members["einsum"]["kind"] == 3, "jnp. completes functions with their signatures",
               members.get("einsum"))
        expect("zeros" in members and "_private" not in members, "jnp. lists jnp's members", sorted(members)[:10])
        sharding = items(10, 17)
        expect(sharding.get("PartitionSpec", {}).get("kind") == 7 and "Mesh" in sharding and "AxisType" in sharding,
               "jax.sharding. completes its classes", sorted(sharding))
        axes = items(12, 35)
        expect(sorted(axes) == ["X", "Y"] and axes["X"]["insertText"] == "'X'",
               "inside P( the mesh axis names, quoted", axes)
        client.change(path, typing.replace("out_sharding=P(\n", "out_sharding=P('\n"), 3)
        client.diagnostics(uri(path), 3)
        axes = items(12, 36)
        expect(sorted(axes) == ["X", "Y"] and axes["Y"]["insertText"] == "Y", "inside P(' the bare names", axes)
        names = items(8, 2)
        expect("In" in names and "print" not in names and "int" not in names, "a partial name completes names in scope",
               sorted(names))
        help = client.request("textDocument/signatureHelp", {"textDocument": {"uri": uri(path)},
                                                             "position": {"line": 11, "character": 21}})
        signature = help["signatures"][0] if help else {}
        expect(signature.get("label", "").startswith("einsum(subscripts"), "signature help inside jnp.einsum(",
               signature)
        if signature:
            label = signature["label"]
            start, end = signature["parameters"][help["activeParameter"]]["label"]
            expect(label[start:end] == "*operands", "the second argument goes to *operands", label[start:end])
        outside = client.request("textDocument/signatureHelp", {"textDocument": {"uri": uri(path)},
                                                                "position": {"line": 0, "character": 3}})
        expect(outside is None, "no signature help outside a call", outside)
        expect(client.close() == 0, "exit status 0")
    finally:
        client.kill()


def test_configuration(folder):
    workspace = os.path.join(folder, "workspace")
    os.makedirs(os.path.join(workspace, "pkg"))
    write(workspace, "pyproject.toml", '[project]\nname = "m"\n\n[tool.shardlang]\nchip = "v5p"\ndevices = 8\n'
                                        'mesh = "data=2,model=4"\n')
    library = write(workspace, "pkg/layers.shl", "import jax.numpy as jnp\nfrom jax.sharding import PartitionSpec as P\n"
                                                  "w = jnp.zeros((8, 16), out_sharding=P('data', 'model'))\n")
    client = Client(BINARY)
    try:
        client.initialize(workspace)
        with open(library) as f:
            client.open(library, f.read())
        diagnostics, _ = client.diagnostics(uri(library), 1)
        expect(diagnostics == [], "pyproject.toml's mesh is the context mesh", diagnostics)
        hover = client.request("textDocument/hover", {"textDocument": {"uri": uri(library)},
                                                      "position": {"line": 2, "character": 0}})
        text = hover["contents"]["value"] if hover else ""
        expect("w: f32[8@data,16@model]" in text and "per device: f32[4,4], 64 B" in text,
               "the mesh's shardings in hover", text)
        expect("estimated on v5p" in text, "pyproject.toml's chip", text)
        # A shardlang.toml nearer the file wins; a bad one is a diagnostic.
        config = write(workspace, "pkg/shardlang.toml", 'devices = 8\ncolour = "blue"\n')
        client.notify("textDocument/didSave", {"textDocument": {"uri": uri(config)}})
        diagnostics, _ = client.diagnostics(uri(library), 1)
        expect(len(diagnostics) >= 1 and diagnostics[0]["code"] == "config"
               and "unknown key 'colour'" in diagnostics[0]["message"], "a bad configuration is a diagnostic",
               diagnostics)
        write(workspace, "pkg/shardlang.toml", 'devices = 8\nchip = "v4"\nmesh = "data=4,model=2"\n')
        client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri(config), "type": 2}]})
        diagnostics, _ = client.diagnostics(uri(library), 1)
        hover = client.request("textDocument/hover", {"textDocument": {"uri": uri(library)},
                                                      "position": {"line": 2, "character": 0}})
        text = hover["contents"]["value"] if hover else ""
        expect(diagnostics == [] and "per device: f32[2,8]" in text and "estimated on v4" in text,
               "the nearer shardlang.toml wins", f"{diagnostics} {text}")
        expect(client.close() == 0, "exit status 0")
    finally:
        client.kill()
    # Flags win over files.
    client = Client(BINARY, "--chip", "v6e", "--mesh", "data=8,model=1")
    try:
        client.initialize(workspace)
        with open(library) as f:
            client.open(library, f.read())
        client.diagnostics(uri(library), 1)
        hover = client.request("textDocument/hover", {"textDocument": {"uri": uri(library)},
                                                      "position": {"line": 2, "character": 0}})
        text = hover["contents"]["value"] if hover else ""
        expect("per device: f32[1,16]" in text and "estimated on v6e" in text, "flags win over configuration files",
               text)
        client.close()
    finally:
        client.kill()


def test_utf8_positions(folder):
    # "𝑥" is one code point, two UTF-16 units and four UTF-8 bytes: x ends at
    # code point 10.
    text = "import jax.numpy as jnp\ns = '𝑥'; x = jnp.zeros((2,))\n"
    path = write(folder, "utf8.shl", text)
    for encodings, character in ((["utf-8", "utf-16"], 13), (None, 11)):
        client = Client(BINARY)
        try:
            result = client.initialize(folder, encodings)
            expected = "utf-8" if encodings else "utf-16"
            expect(result["capabilities"]["positionEncoding"] == expected, f"position encoding {expected}", result)
            client.open(path, text)
            client.diagnostics(uri(path), 1)
            hints = client.request("textDocument/inlayHint", {"textDocument": {"uri": uri(path)},
                                                              "range": {"start": {"line": 1, "character": 0},
                                                                        "end": {"line": 1, "character": 40}}})
            positions = [h["position"] for h in hints]
            expect(positions == [{"line": 1, "character": character}], f"the hint after x in {expected}", positions)
            client.close()
        finally:
            client.kill()


def test_endless_loop_and_interrupt(folder):
    loop = write(folder, "loop.shl", LOOP)
    client = Client(BINARY, "--time-limit", "0.5")
    try:
        client.initialize(folder)
        client.open(loop, LOOP)
        diagnostics, _ = client.diagnostics(uri(loop), 1, timeout=30)
        expect(len(diagnostics) == 1 and diagnostics[0]["code"] == "limit/time"
               and diagnostics[0]["message"] == "TimeoutError: check ran past its time limit of 0.5 seconds",
               "an endless loop is cut off by the time limit, with a diagnostic", diagnostics)
        hover = client.request("textDocument/hover", {"textDocument": {"uri": uri(loop)},
                                                      "position": {"line": 1, "character": 0}})
        expect(hover is not None and "x: f32[4]" in hover["contents"]["value"], "the server still answers", hover)
        client.close()
    finally:
        client.kill()
    # With a long limit, a change interrupts the running check: a request
    # about the old text waiting on it gets ContentModified, a cancelled one
    # RequestCancelled, and the new text's diagnostics come at once.
    # (The limit is an hour, so a check that was not interrupted would time
    # the wait out; the test measures no time itself.)
    client = Client(BINARY, "--time-limit", "3600")
    try:
        client.initialize(folder)
        client.open(loop, LOOP)
        hover = client.send_request("textDocument/hover", {"textDocument": {"uri": uri(loop)},
                                                           "position": {"line": 1, "character": 0}})
        hints = client.send_request("textDocument/inlayHint", {"textDocument": {"uri": uri(loop)},
                                                               "range": {"start": {"line": 0, "character": 0},
                                                                         "end": {"line": 9, "character": 0}}})
        client.notify("$/cancelRequest", {"id": hints})
        client.change(loop, LOOP.replace("while True:", "for _ in range(3):"), 2)
        diagnostics, _ = client.diagnostics(uri(loop), 2, timeout=300)
        expect(diagnostics == [], "a change interrupts the endless check of the old text", diagnostics)
        response = client.response(hover)
        expect(response.get("error", {}).get("code") == -32801, "a request about the replaced text: ContentModified",
               response)
        response = client.response(hints)
        expect(response.get("error", {}).get("code") == -32800, "a cancelled request: RequestCancelled", response)
        expect(client.close() == 0, "exit status 0")
    finally:
        client.kill()


def test_malformed_messages(folder):
    client = Client(BINARY)
    try:
        client.initialize(folder)

        def alive(what):
            result = client.request("textDocument/hover", {"textDocument": {"uri": uri("nothing.shl")},
                                                           "position": {"line": 0, "character": 0}})
            expect(result is None, f"the server answers after {what}", result)

        def error_with_null_id(code, what):
            message, _ = client.wait_for(lambda m: m.get("id", 0) is None and "error" in m, 20, what)
            expect(message["error"]["code"] == code, what, message)

        client.send_bytes(b"Content-Length: 9\r\n\r\n{not json")
        error_with_null_id(-32700, "a body that is not JSON: ParseError")
        alive("a body that is not JSON")
        client.send_bytes(b"Content-Length: nine\r\n\r\n{}")
        error_with_null_id(-32700, "a header without a usable Content-Length: ParseError")
        alive("a bad header")
        client.send({"jsonrpc": "2.0", "id": 77})
        response = client.response(77)
        expect(response["error"]["code"] == -32600, "a request without a method: InvalidRequest", response)
        client.send([1, 2])
        error_with_null_id(-32600, "a message that is not an object: InvalidRequest")
        client.send({"jsonrpc": "2.0", "id": [1], "method": "shutdown"})
        error_with_null_id(-32600, "an id that is neither a number nor a string: InvalidRequest")
        client.send({"jsonrpc": "1.0", "id": 78, "method": "shutdown"})
        expect(client.response(78)["error"]["code"] == -32600, "jsonrpc other than 2.0: InvalidRequest")
        response = client.response(client.send_request("textDocument/definition", {}))
        expect(response["error"]["code"] == -32601, "an unknown method: MethodNotFound", response)
        response = client.response(client.send_request("workspace/symbol", {"query": ""}))
        expect(response["error"]["code"] == -32601, "an unknown workspace method: MethodNotFound", response)
        for params in ({}, {"textDocument": {"uri": 5}, "position": {"line": 0, "character": 0}},
                       {"textDocument": {"uri": "file:///x"}, "position": {"line": "0", "character": 0}}, [1]):
            response = client.response(client.send_request("textDocument/hover", params))
            expect(response.get("error", {}).get("code") == -32602, f"hover with params {params}: InvalidParams",
                   response)
        client.notify("textDocument/didChange", {"textDocument": {"uri": "file:///not/open.shl"}})
        client.notify("textDocument/didOpen", {"textDocument": 3})
        client.notify("no/such/notification", {"x": 1})
        alive("malformed and unknown notifications")
        expect(client.close() == 0, "exit status 0 after malformed messages")
    finally:
        client.kill()
    client = Client(BINARY)
    try:
        client.initialize(folder)
        client.request("shutdown")
        response = client.response(client.send_request("textDocument/hover", {}))
        expect(response["error"]["code"] == -32600, "a request after shutdown: InvalidRequest", response)
        client.notify("exit")
        expect(client.process.wait(20) == 0, "exit after shutdown: status 0")
    finally:
        client.kill()


def main():
    global BINARY
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    BINARY = os.path.abspath(parser.parse_args().bin)
    with tempfile.TemporaryDirectory() as folder:
        for test in (lambda: test_before_initialize(BINARY),
                     lambda: test_diagnostics_hover_hints_actions(BINARY, folder),
                     lambda: test_completion_and_signatures(BINARY, folder),
                     lambda: test_configuration(folder),
                     lambda: test_utf8_positions(folder),
                     lambda: test_endless_loop_and_interrupt(folder),
                     lambda: test_malformed_messages(folder)):
            try:
                test()
            except (TimeoutError, EOFError, RuntimeError, KeyError, TypeError) as error:
                failures.append(f"{type(error).__name__}: {error}")
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    if failures:
        sys.exit(1)
    print("ok: lsp session")


if __name__ == "__main__":
    main()
