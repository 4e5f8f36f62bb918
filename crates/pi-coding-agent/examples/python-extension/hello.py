"""An extension in Python (run: pi -e examples/python-extension/hello.py).

- `shout` tool: the model can call it; it answers in capitals.
- a `tool_call` gate: any bash command containing `rm -rf` is blocked.
- `/py-hello NAME`: greets NAME with a notification and records it in the
  session as a custom entry.
"""

from pi_extension import Extension

ext = Extension()


@ext.on("tool_call")
def gate(event, ctx):
    command = (event.get("input") or {}).get("command", "")
    if event.get("toolName") == "bash" and "rm -rf" in command:
        return {"block": True, "reason": "rm -rf is blocked by hello.py"}
    return None


@ext.tool(
    "shout",
    "Repeats the text in capital letters.",
    {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
)
def shout(params, ctx):
    return {"content": [{"type": "text", "text": params["text"].upper()}], "details": {"model": (ctx.state.get("model") or {}).get("id")}}


@ext.command("py-hello", "Greets someone from Python")
def hello(args, ctx):
    name = args.strip() or "world"
    ctx.ui.notify("Hello, " + name + "!", "info")
    ctx.append_entry("py-hello", {"name": name, "entries": len(ctx.entries)})


ext.run()
