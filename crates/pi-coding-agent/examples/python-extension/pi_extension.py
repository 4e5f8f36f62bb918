"""A tiny client of pi-rs's extension host protocol (docs/extension-protocol.md),
standard library only: an extension written in Python.

    from pi_extension import Extension

    ext = Extension()

    @ext.on("tool_call")
    def gate(event, ctx):
        if "rm -rf" in event["input"].get("command", ""):
            return {"block": True, "reason": "Not here"}

    ext.run()

pi-rs starts the script (`pi -e hello.py`) with the socket's path in
PI_EXTENSION_SOCKET. Handlers run on worker threads, so one waiting for the
user (ctx.ui.confirm) never holds up the others.
"""

import json
import os
import socket
import sys
import threading
import traceback

PROTOCOL = 1


class RemoteError(Exception):
    """pi-rs answered a request with an error."""


class Connection:
    """JSON lines over the socket: requests both ways, responses in any order."""

    def __init__(self, path, on_request, on_notify):
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.connect(path)
        self._reader = self._sock.makefile("r", encoding="utf-8", newline="\n")
        self._write_lock = threading.Lock()
        self._pending = {}
        self._pending_lock = threading.Lock()
        self._next_id = 1
        self._on_request = on_request
        self._on_notify = on_notify

    def send(self, message):
        line = json.dumps(message, separators=(",", ":")) + "\n"
        with self._write_lock:
            self._sock.sendall(line.encode("utf-8"))

    def notify(self, method, params):
        self.send({"kind": "notify", "method": method, "params": params})

    def request(self, method, params):
        """Sends a request and waits for its answer (from any thread)."""
        done = threading.Event()
        slot = {}
        with self._pending_lock:
            request_id = self._next_id
            self._next_id += 1
            self._pending[request_id] = (done, slot)
        self.send({"kind": "request", "id": request_id, "method": method, "params": params})
        done.wait()
        if "error" in slot:
            raise RemoteError(slot["error"].get("message", "error"))
        return slot.get("result")

    def serve(self):
        """Reads until pi-rs closes the connection or sends `shutdown`."""
        for line in self._reader:
            if not line.strip():
                continue
            message = json.loads(line)
            kind = message.get("kind")
            if kind == "response":
                with self._pending_lock:
                    done, slot = self._pending.pop(message["id"], (None, None))
                if done is not None:
                    if message.get("error") is not None:
                        slot["error"] = message["error"]
                    else:
                        slot["result"] = message.get("result")
                    done.set()
            elif kind == "request":
                if message["method"] == "shutdown":
                    self.send({"kind": "response", "id": message["id"], "result": None})
                    return
                threading.Thread(target=self._answer, args=(message,), daemon=True).start()
            elif kind == "notify":
                self._on_notify(message["method"], message.get("params") or {})

    def _answer(self, message):
        try:
            result = self._on_request(message["method"], message.get("params") or {})
            reply = {"kind": "response", "id": message["id"], "result": result}
        except Exception as error:  # the handler's failure goes back to pi-rs
            reply = {
                "kind": "response",
                "id": message["id"],
                "error": {"message": str(error), "stack": traceback.format_exc()},
            }
        self.send(reply)


class Ui:
    """ctx.ui: dialogs and notifications through pi-rs's UI."""

    def __init__(self, connection):
        self._connection = connection

    def _call(self, method, *args):
        return self._connection.request("ui", {"method": method, "args": list(args)})

    def notify(self, message, level="info"):
        return self._call("notify", message, level)

    def confirm(self, title, message, timeout_ms=None):
        return self._call("confirm", title, message, {"timeout": timeout_ms} if timeout_ms else {})

    def select(self, title, options):
        return self._call("select", title, options, {})

    def input(self, title, placeholder=None):
        return self._call("input", title, placeholder, {})

    def set_status(self, key, text):
        return self._call("setStatus", key, text)


class Context:
    """What a handler gets: the UI, the mirrored state, and pi's actions."""

    def __init__(self, extension):
        self._extension = extension
        self.ui = Ui(extension.connection)

    @property
    def state(self):
        """The mirrored state (model, activeTools, idle, ...)."""
        return self._extension.state

    @property
    def entries(self):
        """The session's entries, as pi-rs last sent them."""
        return self._extension.entries

    def send_message(self, custom_type, content, display=True, details=None, trigger_turn=False):
        message = {"customType": custom_type, "content": content, "display": display, "details": details}
        return self._extension.connection.request(
            "send_message", {"ext": 0, "message": message, "options": {"triggerTurn": trigger_turn}}
        )

    def append_entry(self, custom_type, data=None):
        return self._extension.connection.request(
            "append_entry", {"ext": 0, "customType": custom_type, "data": data}
        )


class Extension:
    """One extension: register handlers, tools and commands, then run()."""

    def __init__(self):
        self.path = os.path.abspath(sys.argv[0])
        self.handlers = []
        self.tools = {}
        self.tool_specs = []
        self.commands = {}
        self.command_specs = []
        self.state = {}
        self.entries = []
        self.connection = None

    def on(self, event):
        """Decorator: handle pi's `event` (returns pi's result JSON, or None)."""

        def register(handler):
            self.handlers.append((event, handler))
            return handler

        return register

    def tool(self, name, description, parameters, label=None):
        """Decorator: a tool the model can call; returns pi's tool result."""

        def register(execute):
            self.tools[name] = execute
            self.tool_specs.append(
                {"name": name, "label": label or name, "description": description, "parameters": parameters}
            )
            return execute

        return register

    def command(self, name, description=None):
        """Decorator: a /command; gets its argument text."""

        def register(run):
            self.commands[name] = run
            self.command_specs.append({"name": name, "description": description})
            return run

        return register

    def _request(self, method, params):
        ctx = Context(self)
        if method == "load":
            return {
                "extensions": [
                    {
                        "path": self.path,
                        "handlers": [event for event, _ in self.handlers],
                        "tools": self.tool_specs,
                        "commands": self.command_specs,
                    }
                ]
            }
        if method == "event":
            return self.handlers[params["handler"]][1](params["event"], ctx)
        if method == "tool":
            return self.tools[params["name"]](params.get("params") or {}, ctx)
        if method == "command":
            self.commands[params["name"]](params.get("args", ""), ctx)
            return None
        raise RemoteError("unknown method: " + method)

    def _notify(self, method, params):
        if method == "state":
            self.state.update(params)
        elif method == "session_reset":
            self.entries = list(params.get("entries") or [])
        elif method == "session_append":
            self.entries.extend(params.get("entries") or [])

    def run(self):
        """Connects to pi-rs and serves until it ends the session."""
        path = os.environ.pop("PI_EXTENSION_SOCKET", None)
        if not path:
            sys.exit("pi_extension: run me through pi-rs: pi -e " + sys.argv[0])
        self.connection = Connection(path, self._request, self._notify)
        runtime = "python " + sys.version.split()[0]
        self.connection.notify("hello", {"protocol": PROTOCOL, "runtime": runtime})
        self.connection.serve()
