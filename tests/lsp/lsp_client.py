"""A small LSP client for the tests and the latency bench: starts
`shardlang lsp`, frames JSON-RPC messages, and waits on conditions (a
response, a notification) with a deadline, never on a fixed sleep."""
import json
import os
import queue
import subprocess
import threading
import time


def uri(path):
    return "file://" + os.path.abspath(path)


class Client:
    def __init__(self, binary, *arguments, cwd=None):
        self.process = subprocess.Popen([binary, "lsp", *arguments], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, cwd=cwd)
        self.messages = queue.Queue()
        self.pending = []  # messages read but not yet taken
        self.next_id = 0
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    def _read(self):
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            body = stream.read(length)
            self.messages.put((time.monotonic(), json.loads(body)))

    def _drain_stderr(self):
        self.stderr = self.process.stderr.read()

    def send_bytes(self, data):
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message):
        body = json.dumps(message).encode()
        self.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return time.monotonic()

    def notify(self, method, params=None):
        return self.send({"jsonrpc": "2.0", "method": method, "params": params if params is not None else {}})

    def send_request(self, method, params=None):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params if params is not None else {}})
        return self.next_id

    def wait_for(self, predicate, timeout=20, what="a message"):
        """The first message (read before or after the call) that satisfies
        `predicate`, with its arrival time; raises after `timeout` seconds."""
        for index, (arrived, message) in enumerate(self.pending):
            if predicate(message):
                del self.pending[index]
                return message, arrived
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {what} within {timeout} s; stderr: {self.stderr!r}")
            try:
                item = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if item is None:
                raise EOFError(f"the server closed its output while waiting for {what}; stderr: {self.stderr!r}")
            if predicate(item[1]):
                return item[1], item[0]
            self.pending.append(item)

    def response(self, request_id, timeout=20):
        message, _ = self.wait_for(lambda m: m.get("id") == request_id and "method" not in m, timeout,
                                   f"response to request {request_id}")
        return message

    def request(self, method, params=None, timeout=20):
        message = self.response(self.send_request(method, params), timeout)
        if "error" in message:
            raise RuntimeError(f"{method} failed: {message['error']}")
        return message["result"]

    def diagnostics(self, document_uri, version=None, timeout=20):
        """The next publishDiagnostics for the document (of `version`, when given)."""
        def wanted(m):
            if m.get("method") != "textDocument/publishDiagnostics" or m["params"]["uri"] != document_uri:
                return False
            return version is None or m["params"].get("version") == version
        message, arrived = self.wait_for(wanted, timeout, f"diagnostics of {document_uri} v{version}")
        return message["params"]["diagnostics"], arrived

    def initialize(self, root=None, encodings=None):
        capabilities = {"textDocument": {"publishDiagnostics": {"relatedInformation": True}}}
        if encodings:
            capabilities["general"] = {"positionEncodings": encodings}
        result = self.request("initialize", {"processId": os.getpid(), "rootUri": uri(root) if root else None,
                                             "capabilities": capabilities})
        self.notify("initialized")
        return result

    def open(self, path, text, version=1):
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri(path), "languageId": "python",
                                                              "version": version, "text": text}})

    def change(self, path, text, version):
        return self.notify("textDocument/didChange", {"textDocument": {"uri": uri(path), "version": version},
                                                      "contentChanges": [{"text": text}]})

    def close(self, timeout=20):
        """shutdown, exit; the exit status."""
        self.request("shutdown")
        self.notify("exit")
        return self.process.wait(timeout)

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
