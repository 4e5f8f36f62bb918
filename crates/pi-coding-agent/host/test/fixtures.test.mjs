// The host against the tests' own extensions (test/fixtures/): load failures with pi's
// wording, a missing export, an extension with its own node_modules, event input changes,
// model calls, built-in tools, `pi` launched by an extension, state reads, cancellation.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { FakePiRs, FIXTURES } from "./driver.mjs";

const FILES = [
	"missing-export.ts", "syntax-error.ts", "no-factory.ts", "with-deps", "mutate-input.ts", "model-call.ts",
	"builtin-tools.ts", "spawn-pi.ts", "misc-api.ts", "does-not-exist.ts",
];
const ext = (file) => FILES.indexOf(file);

/** @type {FakePiRs} */
let pi;
let loaded;
const lastNotify = () => pi.ui("notify").at(-1)?.[0];

before(async () => {
	pi = await new FakePiRs().start();
	const fakePi = path.join(pi.dir, "fake-pi.sh");
	fs.writeFileSync(fakePi, '#!/bin/sh\necho "pi-rs got: $*"\n', { mode: 0o755 });
	loaded = (await pi.load(FILES.map((f) => path.join(FIXTURES, f)), { piExecutable: fakePi, version: "0.73.1-rs" })).extensions;
});

after(async () => {
	await pi.stop();
});

describe("load errors", () => {
	test("a missing export names the module and the export", () => {
		assert.equal(
			loaded[ext("missing-export.ts")].error,
			'Failed to load extension: pi-rs extension host: @mariozechner/pi-coding-agent has no export "definitelyNotExported"',
		);
	});
	test("a syntax error is a load error", () => {
		assert.match(loaded[ext("syntax-error.ts")].error, /^Failed to load extension: .*syntax-error\.ts/s);
		assert.deepEqual(loaded[ext("syntax-error.ts")].tools, []);
	});
	test("no factory function: pi's wording", () => {
		assert.equal(loaded[ext("no-factory.ts")].error, `Extension does not export a valid factory function: ${path.join(FIXTURES, "no-factory.ts")}`);
	});
	test("a missing file is a load error", () => {
		assert.match(loaded[ext("does-not-exist.ts")].error, /^Failed to load extension: /);
	});
	test("the other extensions load", () => {
		for (const f of ["with-deps", "mutate-input.ts", "model-call.ts", "builtin-tools.ts", "spawn-pi.ts", "misc-api.ts"])
			assert.equal(loaded[ext(f)].error, null, `${f}: ${loaded[ext(f)].error}`);
	});
});

describe("extension features", () => {
	test("a folder with package.json pi.extensions and its own node_modules; the host's pi package wins", async () => {
		const result = await pi.request("tool", { ext: ext("with-deps"), name: "greet", toolCallId: "c", params: { who: "Ann" } });
		assert.equal(result.content[0].text, "Greetings, Ann, from the extension's node_modules");
	});

	test("a tool_call handler's change of event.input comes back as `input`", async () => {
		const result = await pi.request("event", {
			ext: ext("mutate-input.ts"), handler: 0, event: { type: "tool_call", toolCallId: "t", toolName: "bash", input: { command: "ls" } },
		});
		assert.deepEqual(result, { input: { command: "set -e; ls" } });
	});

	test("complete() and stream() go through model_stream with model_event notifications", async () => {
		pi.notify("state", { model: { provider: "test", id: "m1", api: "x" }, models: { all: [{ provider: "test", id: "m1", api: "x" }], available: [] } });
		const final = { role: "assistant", content: [{ type: "text", text: "42" }], stopReason: "stop", provider: "test", model: "m1" };
		pi.answers.set("model_stream", (params, msg) => {
			assert.equal(params.model.id, "m1");
			assert.deepEqual(params.context.messages[0].content, "question");
			pi.notify("model_event", { id: msg.id, event: { type: "start", partial: final } });
			pi.notify("model_event", { id: msg.id, event: { type: "text_delta", contentIndex: 0, delta: "42", partial: final } });
			pi.notify("model_event", { id: msg.id, event: { type: "done", reason: "stop", message: final } });
			return final;
		});
		await pi.request("command", { ext: ext("model-call.ts"), name: "ask-model", args: "question" });
		assert.equal(lastNotify(), "stop: 42");
		assert.deepEqual(pi.requests.findLast((r) => r.method === "model_stream").params.options, { maxTokens: 10 });
		await pi.request("command", { ext: ext("model-call.ts"), name: "stream-model", args: "question" });
		assert.equal(lastNotify(), "start,text_delta,done -> stop");
		pi.answers.set("model_stream", () => ({ __error: "no API key for test" }));
		await pi.request("command", { ext: ext("model-call.ts"), name: "ask-model", args: "question" });
		assert.equal(lastNotify(), "error: ");
	});

	test("createReadTool runs pi-rs's read through builtin_tool; operations are refused", async () => {
		pi.answers.set("builtin_tool", (params, msg) => {
			pi.notify("builtin_tool_update", { id: msg.id, partial: { content: [{ type: "text", text: "..." }] } });
			return { content: [{ type: "text", text: `contents of ${params.params.path} in ${params.cwd}` }], details: null };
		});
		await pi.request("command", { ext: ext("builtin-tools.ts"), name: "read-through", args: "a.txt" });
		const [name, description, result, updates] = lastNotify().split("|");
		assert.equal(name, "read");
		assert.equal(description, "Read the contents of a file.");
		assert.equal(JSON.parse(result).content[0].text, `contents of a.txt in ${pi.dir}`);
		assert.equal(updates, "1");
		const call = pi.requests.findLast((r) => r.method === "builtin_tool").params;
		assert.deepEqual(call, { name: "read", toolCallId: "call-1", params: { path: "a.txt" }, cwd: pi.dir, options: {} });
		await pi.request("command", { ext: ext("builtin-tools.ts"), name: "bash-ops", args: "" });
		assert.match(lastNotify(), /^pi-rs extension host: createBashTool\(\{operations\}\) is not supported/);
	});

	test("process.argv[1] starts pi-rs (load.piExecutable) with the arguments", async () => {
		await pi.request("command", { ext: ext("spawn-pi.ts"), name: "spawn-pi", args: "--mode json -p hi" });
		assert.equal(lastNotify(), "0:pi-rs got: --mode json -p hi");
	});

	test("state and session reads, optimistic setActiveTools, flags", async () => {
		pi.notify("state", {
			allTools: [{ name: "read" }, { name: "bash" }],
			activeTools: ["read", "bash"],
			thinkingLevel: "medium",
			flags: { verbose: true },
			contextUsage: { tokens: 10, contextWindow: 100, percent: 10 },
			models: { all: [{ provider: "test", id: "m1", name: "Model One" }], available: [] },
		});
		pi.notify("session_reset", {
			header: { type: "session", id: "sess", cwd: pi.dir },
			entries: [
				{ type: "message", id: "e1", parentId: null, timestamp: "2025-01-01T00:00:00Z", message: { role: "user", content: "x" } },
				{ type: "label", id: "e2", parentId: "e1", timestamp: "2025-01-01T00:00:01Z", targetId: "e1", label: "start" },
			],
			leafId: "e2",
			file: "/tmp/sess.jsonl",
		});
		pi.notify("session_append", { entries: [{ type: "session_info", id: "e3", parentId: "e2", timestamp: "2025-01-01T00:00:02Z", name: "My session" }], leafId: "e3" });
		await pi.request("command", { ext: ext("misc-api.ts"), name: "report", args: "" });
		assert.deepEqual(JSON.parse(lastNotify()), {
			flag: true, active: ["read"], thinking: "medium", model: "m1", idle: true, leaf: "e3", branch: ["e1", "e2", "e3"],
			label: "start", name: "My session", usage: { tokens: 10, contextWindow: 100, percent: 10 }, found: "Model One",
		});
		await pi.waitRequest("set_active_tools", (p) => p.names[0] === "read");
	});

	test("registrations after load: handlers and commands through `register`", async () => {
		await pi.request("command", { ext: ext("misc-api.ts"), name: "late", args: "" });
		const regs = pi.requests.filter((r) => r.method === "register" && r.params.ext === ext("misc-api.ts")).map((r) => r.params);
		assert.deepEqual(regs, [
			{ ext: ext("misc-api.ts"), handlers: ["agent_end"] },
			{ ext: ext("misc-api.ts"), commands: [{ name: "later", description: "registered late", completions: false }] },
		]);
	});

	test("`cancel` aborts the signal of a request in flight", async () => {
		pi.notify("state", { idle: false });
		const { id, promise } = pi.requestWithId("command", { ext: ext("misc-api.ts"), name: "wait-cancel", args: "" });
		await new Promise((r) => setTimeout(r, 20));
		pi.notify("cancel", { id });
		await promise;
		assert.equal(lastNotify(), "aborted");
		pi.notify("state", { idle: true });
	});

	test("newSession's withSession runs after the switch with a fresh ctx", async () => {
		pi.answers.set("context", (params) => {
			if (params.method !== "newSession") return null;
			pi.notify("session_reset", { header: { type: "session", id: "new-one" }, entries: [], leafId: null, file: null });
			return { cancelled: false };
		});
		await pi.request("command", { ext: ext("misc-api.ts"), name: "switch", args: "" });
		const notes = pi.ui("notify").map((a) => a[0]);
		assert.deepEqual(notes.slice(-2), ["fresh in new-one", "cancelled=false"]);
	});

	test("unknown methods get an error; the host logs nothing to stdout", async () => {
		await assert.rejects(pi.request("frobnicate", {}), /unknown method: frobnicate/);
		assert.equal(pi.stdout, "");
	});

	test("`hello` names the protocol and runtime", () => {
		assert.equal(pi.hello.params.protocol, 1);
		assert.match(pi.hello.params.runtime, /^node v\d+/);
	});
});
