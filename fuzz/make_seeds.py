#!/usr/bin/env python3
"""Writes fuzz/seeds/<target>/ from the repo's fixtures (run from fuzz/).

The seeds are committed; libFuzzer's generated corpora (fuzz/corpus/) are not.
SSE and partial-JSON inputs start with one byte: the chunk size the target feeds.
"""
import glob, hashlib, json, os, shutil

SSE = {
    "sse_anthropic": "anthropic-messages",
    "sse_openai_completions": "openai-completions",
    "sse_openai_responses": "openai-responses",
    "sse_openai_codex_responses": "openai-codex-responses",
    "sse_google": "google-generative-ai",
    "sse_mistral": "mistral-conversations",
}


def put(target, data):
    d = os.path.join("seeds", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()[:16]), "wb") as f:
        f.write(data)


for target in list(SSE) + ["eventstream_bedrock", "partial_json", "session_load", "rpc_command", "edit_match",
                          "image_read"]:
    shutil.rmtree(os.path.join("seeds", target), ignore_errors=True)

for target, wire in SSE.items():
    for path in sorted(glob.glob(f"../fixtures/sse/{wire}/*.sse")):
        body = open(path, "rb").read()
        put(target, bytes([64]) + body)
        put(target, bytes([7]) + body)

# Bedrock answers as the event-stream bytes pi was sent (fixtures/eventstream).
for path in sorted(glob.glob("../fixtures/eventstream/*.bin")):
    body = open(path, "rb").read()
    put("eventstream_bedrock", bytes([64]) + body)
    put("eventstream_bedrock", bytes([5]) + body)

# Tool-call arguments and session lines as JSON documents.
cases = json.load(open("../fixtures/tools-capture/cases.json"))
for i, case in enumerate(cases[:24]):
    put("partial_json", bytes([1 + i % 9]) + json.dumps(case["args"]).encode())
for text in ['{"a": [1, 2.5e3, -0.0, true, null, "x\\u00e9\\n"]}', '[{"k": {"n": {}}}]', '"\\ud83d\\ude00"']:
    put("partial_json", bytes([3]) + text.encode())

sessions = sorted(glob.glob("../fixtures/session-corpus/*/session.jsonl")) + sorted(
    glob.glob("../fixtures/sessions/*.jsonl"))
for path in sessions:
    if os.path.getsize(path) <= 24 * 1024:
        put("session_load", open(path, "rb").read())

rpc = [
    {"type": "prompt", "message": "hi", "images": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]},
    {"id": "1", "type": "prompt", "message": "x", "streamingBehavior": "steer"},
    {"type": "steer", "message": "s"}, {"type": "follow_up", "message": "f"}, {"id": 2, "type": "abort"},
    {"type": "new_session", "parentSession": "/tmp/p.jsonl"}, {"type": "get_state"},
    {"type": "set_model", "provider": "anthropic", "modelId": "claude-sonnet-4-5"}, {"type": "cycle_model"},
    {"type": "get_available_models"}, {"type": "set_thinking_level", "level": "high"},
    {"type": "cycle_thinking_level"}, {"type": "set_steering_mode", "mode": "all"},
    {"type": "set_follow_up_mode", "mode": "one-at-a-time"}, {"type": "compact", "customInstructions": "c"},
    {"type": "set_auto_compaction", "enabled": True}, {"type": "set_auto_retry", "enabled": False},
    {"type": "abort_retry"}, {"type": "bash", "command": "ls"}, {"type": "abort_bash"},
    {"type": "get_session_stats"}, {"type": "export_html", "outputPath": "o.html"},
    {"type": "switch_session", "sessionPath": "s.jsonl"}, {"type": "fork", "entryId": "ab12cd34"},
    {"type": "clone"}, {"type": "get_fork_messages"}, {"type": "get_last_assistant_text"},
    {"type": "set_session_name", "name": "n"}, {"type": "get_messages"}, {"type": "get_commands"},
]
for command in rpc:
    put("rpc_command", json.dumps(command).encode() + b"\n")
put("rpc_command", b"\n".join(json.dumps(c).encode() for c in rpc[:6]) + b"\r\n\xff\xfe\n[1]\n{\"type\":\n")

for case in cases:
    if case.get("tool") != "edit":
        continue
    args = case["args"]
    edits = args.get("edits") if isinstance(args.get("edits"), list) else []
    if "oldText" in args:
        edits = edits + [{"oldText": args["oldText"], "newText": args.get("newText", "")}]
    for f in case.get("files", {}).values():
        text = f.get("text")
        if isinstance(text, str) and edits:
            fields = [text] + [v for e in edits for v in (e.get("oldText", ""), e.get("newText", ""))]
            put("edit_match", "\0".join(fields).encode())
for fields in [
    ["a \u2018q\u2019 b  \nline\u00a0\n", "'q' b", "X"],
    ["x\ny\nx\n", "x", "z", "y", "w"],
    ["\ufb01le \u2460 \u2014 dash\n", "file 1 - dash", "F"],
    ["one\ntwo\nthree\nfour\n", "two\n", "2\n", "four", "4"],
    ["  \n\t\n", " ", "y"],
]:
    put("edit_match", "\0".join(fields).encode())


# Images: small valid PNGs (gray, RGB, RGBA, 16-bit), a GIF, and a PNG whose
# header announces 60,000 x 60,000 pixels over one pixel of data.
def png(width, height, color_type, depth, pixel):
    import struct, zlib
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    row = b"\x00" + pixel * width
    ihdr = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(row * height)) + chunk(b"IEND", b"")

for image in [png(2, 2, 0, 8, b"\x80"), png(3, 2, 2, 8, b"\x10\x20\x30"), png(20, 20, 6, 8, b"\x01\x02\x03\xff"),
              png(2, 2, 2, 16, b"\x00\x10\x00\x20\x00\x30")]:
    put("image_read", bytes([0]) + image)
    put("image_read", bytes([1]) + image)
bomb = bytearray(png(1, 1, 0, 8, b"\x00"))
import struct as _struct, zlib as _zlib
bomb[16:24] = _struct.pack(">II", 60000, 60000)
bomb[29:33] = _struct.pack(">I", _zlib.crc32(bytes(bomb[12:29])))
put("image_read", bytes([0]) + bytes(bomb))
put("image_read", bytes([0]) + b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")
