// pi's example extensions (from pi 0.73.1's package) in the host, driven as pi-rs would:
// they load with the registrations pi gives them, and events, tools, commands, dialogs,
// components and renders round-trip.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { example, FakePiRs } from "./driver.mjs";

/** The acceptance list, in order. */
const NAMES = [
	"hello", "permission-gate", "protected-paths", "confirm-destructive", "dirty-repo-guard", "todo", "tool-override",
	"dynamic-tools", "structured-output", "truncated-tool", "pirate", "inline-bash", "claude-rules", "custom-compaction",
	"trigger-compact", "input-transform", "system-prompt-header", "provider-payload", "send-user-message", "session-name",
	"bookmark", "event-bus", "shutdown-command", "model-status", "notify", "status-line", "widget-placement", "question",
	"qna", "preset", "tools", "handoff", "timed-confirm", "rpc-demo", "custom-footer", "custom-header", "git-checkpoint",
	"dynamic-resources", "message-renderer", "plan-mode", "subagent",
];
const ext = (name) => NAMES.indexOf(name);

/** @type {FakePiRs} */
let pi;
/** @type {any[]} */
let loaded;

/** Index of extension `name`'s first handler for `event`. */
function handlerOf(name, event) {
	const i = loaded[ext(name)].handlers.indexOf(event);
	assert.notEqual(i, -1, `${name} has no ${event} handler`);
	return i;
}

/** Sends an event to one handler. */
function event(name, ev, which = 0) {
	let handler = handlerOf(name, ev.type);
	for (let n = 0; n < which; n++) handler = loaded[ext(name)].handlers.indexOf(ev.type, handler + 1);
	return pi.request("event", { ext: ext(name), handler, event: ev });
}

/** The text of the last `notify` ui request. */
const lastNotify = () => pi.ui("notify").at(-1);

before(async () => {
	pi = await new FakePiRs().start();
	const response = await pi.load(NAMES.map(example));
	loaded = response.extensions;
	pi.notify("state", {
		model: { provider: "test", id: "m1", name: "Model One", api: "openai-completions", contextWindow: 1000, maxTokens: 100 },
		allTools: ["read", "bash", "edit", "write", "grep", "find", "ls"].map((name) => ({ name, description: name, parameters: {} })),
		activeTools: ["read", "bash", "edit", "write"],
		models: { all: [{ provider: "test", id: "m1", name: "Model One" }], available: [] },
	});
	pi.notify("session_reset", {
		header: { type: "session", id: "s1", cwd: pi.dir, timestamp: "2025-01-01T00:00:00.000Z" },
		entries: [
			{ type: "message", id: "e1", parentId: null, timestamp: "2025-01-01T00:00:01.000Z", message: { role: "user", content: "hi", timestamp: 1 } },
			{
				type: "message", id: "e2", parentId: "e1", timestamp: "2025-01-01T00:00:02.000Z",
				message: {
					role: "assistant", content: [{ type: "text", text: "hello" }], stopReason: "stop", timestamp: 2,
					usage: { input: 1200, output: 30, cacheRead: 0, cacheWrite: 0, totalTokens: 1230, cost: { total: 0.5 } },
				},
			},
		],
		leafId: "e2",
		file: path.join(pi.dir, "s1.jsonl"),
	});
});

after(async () => {
	await pi.stop();
});

describe("loading pi's examples", () => {
	test("every example of the acceptance list loads", () => {
		assert.equal(loaded.length, NAMES.length);
		for (const [i, record] of loaded.entries()) assert.equal(record.error, null, `${NAMES[i]}: ${record.error}`);
	});

	test("registrations are pi's: handlers in order, tools with JSON schemas, commands, flags, shortcuts", () => {
		assert.deepEqual(loaded[ext("hello")].tools[0].parameters, {
			type: "object",
			required: ["name"],
			properties: { name: { type: "string", description: "Name to greet" } },
		});
		assert.deepEqual(loaded[ext("event-bus")].handlers, ["session_start", "session_start"]);
		assert.deepEqual(loaded[ext("plan-mode")].handlers, ["tool_call", "context", "before_agent_start", "turn_end", "agent_end", "session_start"]);
		assert.deepEqual(loaded[ext("plan-mode")].flags, [{ name: "plan", description: "Start in plan mode (read-only exploration)", type: "boolean", default: false }]);
		assert.deepEqual(loaded[ext("plan-mode")].shortcuts.map((s) => s.key), ["ctrl+alt+p"]);
		assert.deepEqual(loaded[ext("preset")].shortcuts.map((s) => s.key), ["ctrl+shift+u"]);
		const todo = loaded[ext("todo")].tools[0];
		assert.equal(todo.renderCall, true);
		assert.equal(todo.renderResult, true);
		assert.deepEqual(todo.parameters.properties.action, { type: "string", enum: ["list", "add", "toggle", "clear"] });
		const structured = loaded[ext("structured-output")].tools[0];
		assert.equal(structured.promptSnippet, "Emit a final structured answer as a terminating tool result");
		assert.equal(structured.promptGuidelines.length, 2);
		assert.deepEqual(loaded[ext("message-renderer")].messageRenderers, ["status-update"]);
		assert.deepEqual(loaded[ext("send-user-message")].commands.map((c) => c.name), ["ask", "steer", "followup", "askwith"]);
		assert.equal(loaded[ext("tool-override")].tools[0].name, "read");
	});
});

describe("events", () => {
	test("permission-gate asks with a select and blocks on No", async () => {
		pi.answers.set("ui", (p) => (p.method === "select" ? "No" : null));
		const result = await event("permission-gate", { type: "tool_call", toolCallId: "t1", toolName: "bash", input: { command: "sudo rm -rf /" } });
		assert.deepEqual(result, { block: true, reason: "Blocked by user" });
		const [title, options] = pi.ui("select").at(-1);
		assert.match(title, /Dangerous command/);
		assert.deepEqual(options, ["Yes", "No"]);
		pi.answers.set("ui", (p) => (p.method === "select" ? "Yes" : null));
		assert.equal(await event("permission-gate", { type: "tool_call", toolCallId: "t2", toolName: "bash", input: { command: "sudo ls" } }), null);
		assert.equal(await event("permission-gate", { type: "tool_call", toolCallId: "t3", toolName: "bash", input: { command: "ls" } }), null);
		pi.answers.delete("ui");
	});

	test("protected-paths blocks .env and notifies", async () => {
		const result = await event("protected-paths", { type: "tool_call", toolCallId: "t1", toolName: "write", input: { path: "config/.env", content: "" } });
		assert.deepEqual(result, { block: true, reason: 'Path "config/.env" is protected' });
		await pi.waitRequest("ui", (p) => p.method === "notify" && p.args[0] === "Blocked write to protected path: config/.env");
	});

	test("confirm-destructive: a confirm answered false cancels", async () => {
		pi.answers.set("ui", (p) => (p.method === "confirm" ? false : null));
		const result = await event("confirm-destructive", { type: "session_before_switch", reason: "new" });
		assert.deepEqual(result, { cancel: true });
		assert.deepEqual(pi.ui("confirm").at(-1).slice(0, 2), ["Clear session?", "This will delete all messages in the current session."]);
		pi.answers.delete("ui");
	});

	test("dialogs are answered out of order while other requests flow", async () => {
		pi.answers.set("ui", "manual");
		const gate = event("permission-gate", { type: "tool_call", toolCallId: "t9", toolName: "bash", input: { command: "sudo x" } });
		const select = await pi.waitRequest("ui", (p) => p.method === "select");
		// Meanwhile another request completes.
		assert.deepEqual(await event("input-transform", { type: "input", text: "?quick what", source: "interactive" }), {
			action: "transform",
			text: "Respond briefly in 1-2 sentences: what",
		});
		pi.respond(select.id, "Yes");
		assert.equal(await gate, null);
		pi.answers.delete("ui");
	});

	test("inline-bash runs commands with pi.exec and transforms the input", async () => {
		const result = await event("inline-bash", { type: "input", text: "files: !{echo one; echo two}", source: "interactive" });
		assert.deepEqual(result, { action: "transform", text: "files: one\ntwo" });
	});

	test("pirate: a command toggles what before_agent_start returns", async () => {
		assert.equal(await event("pirate", { type: "before_agent_start", prompt: "x", systemPrompt: "SYS", systemPromptOptions: {} }), null);
		await pi.request("command", { ext: ext("pirate"), name: "pirate", args: "" });
		assert.equal(lastNotify()[0], "Arrr! Pirate mode enabled!");
		const result = await event("pirate", { type: "before_agent_start", prompt: "x", systemPrompt: "SYS", systemPromptOptions: {} });
		assert.match(result.systemPrompt, /^SYS\n\nIMPORTANT: You are now in PIRATE MODE/);
	});

	test("dynamic-tools registers a tool after load through `register`", async () => {
		await event("dynamic-tools", { type: "session_start", reason: "startup" });
		const reg = await pi.waitRequest("register", (p) => p.ext === ext("dynamic-tools"));
		assert.equal(reg.params.tools[0].name, "echo_session");
		assert.deepEqual(reg.params.tools[0].parameters.required, ["message"]);
		const result = await pi.request("tool", { ext: ext("dynamic-tools"), name: "echo_session", toolCallId: "c", params: { message: "hi" } });
		assert.equal(result.content[0].text, "[session] hi");
	});

	test("event-bus: bus notifications reach listeners; emits go to pi-rs", async () => {
		await event("event-bus", { type: "session_start", reason: "startup" });
		await event("event-bus", { type: "session_start", reason: "startup" }, 1);
		const emitted = await pi.waitRequest("bus_emit", (p) => p.channel === "my:notification");
		assert.deepEqual(emitted.params.data, { message: "Session started", from: "event-bus-example" });
		pi.notify("bus", { channel: "my:notification", data: { message: "from rust", from: "pi-rs" } });
		await pi.waitRequest("ui", (p) => p.method === "notify" && p.args[0] === "Event from pi-rs: from rust");
	});

	test("bookmark reads the mirrored session and sets a label", async () => {
		await pi.request("command", { ext: ext("bookmark"), name: "bookmark", args: "mark" });
		const label = await pi.waitRequest("set_label");
		assert.deepEqual(label.params, { entryId: "e2", label: "mark" });
	});

	test("custom-compaction gets the event's signal and reads the preparation", async () => {
		const result = await event("custom-compaction", {
			type: "session_before_compact",
			preparation: { messagesToSummarize: [], turnPrefixMessages: [], tokensBefore: 10, firstKeptEntryId: "e1" },
			branchEntries: [],
		});
		assert.equal(result, null); // no google model: default compaction
		assert.match(lastNotify()[0], /Could not find Gemini Flash model/);
	});

	test("git-checkpoint reads the leaf entry", async () => {
		assert.equal(await event("git-checkpoint", { type: "tool_result", toolCallId: "x", toolName: "bash", input: {}, content: [], isError: false, details: null }), null);
	});
});

describe("tools and renders", () => {
	test("todo: execute, render call and result with the theme", async () => {
		const result = await pi.request("tool", { ext: ext("todo"), name: "todo", toolCallId: "c1", params: { action: "add", text: "write tests" } });
		assert.equal(result.content[0].text, "Added todo #1: write tests");
		assert.deepEqual(result.details.todos, [{ id: 1, text: "write tests", done: false }]);
		const call = await pi.request("render", { ext: ext("todo"), kind: "call", name: "todo", toolCallId: "c1", args: { action: "add", text: "write tests" }, width: 40 });
		assert.match(call.lines[0], /todo .*add/);
		assert.match(call.lines[0], /\x1b\[1m/); // bold title
		const res = await pi.request("render", { ext: ext("todo"), kind: "result", name: "todo", toolCallId: "c1", args: {}, result, expanded: false, isPartial: false, width: 40 });
		assert.match(res.lines.join("\n"), /Added/);
	});

	test("structured-output passes `terminate` through", async () => {
		const result = await pi.request("tool", {
			ext: ext("structured-output"), name: "structured_output", toolCallId: "c", params: { headline: "H", summary: "S", actionItems: ["a"] },
		});
		assert.equal(result.terminate, true);
	});

	test("shutdown-command: onUpdate becomes tool_update, ctx.shutdown a context request", async () => {
		const { id, promise } = pi.requestWithId("tool", { ext: ext("shutdown-command"), name: "deploy_and_exit", toolCallId: "c", params: { environment: "prod" } });
		const result = await promise;
		assert.equal(result.content[0].text, "Done! Shutdown requested.");
		const updates = pi.notifications.filter((n) => n.method === "tool_update" && n.params.id === id);
		assert.equal(updates.length, 2);
		await pi.waitRequest("context", (p) => p.method === "shutdown");
	});

	test("message-renderer renders a custom message", async () => {
		const out = await pi.request("render", {
			ext: ext("message-renderer"), kind: "message", expanded: false, width: 30,
			message: { role: "custom", customType: "status-update", content: "all good", display: true, details: { level: "info" } },
		});
		assert.ok(out.lines.length >= 3);
		assert.match(out.lines.join("\n"), /\[INFO\]/);
	});

	test("tool errors come back as error responses", async () => {
		await assert.rejects(pi.request("tool", { ext: ext("hello"), name: "nope", toolCallId: "c", params: {} }), /no tool nope/);
	});
});

describe("components", () => {
	test("todo's /todos: custom component drawn by render, closed by a key", async () => {
		pi.answers.set("ui", "manual");
		const done = pi.request("command", { ext: ext("todo"), name: "todos", args: "" });
		const custom = await pi.waitRequest("ui", (p) => p.method === "custom");
		const id = custom.params.args.component;
		const drawn = await pi.request("render", { kind: "component", component: id, width: 50 });
		assert.ok(drawn.lines.some((l) => l.includes("write tests")));
		await pi.request("input", { component: id, data: "\x1b" });
		const closed = await pi.waitNotify("component_done", (p) => p.component === id);
		assert.equal(closed.params.value, null);
		pi.respond(custom.id, null);
		await done;
		pi.answers.delete("ui");
	});

	test("preset's selector: SelectList keys, done with the choice", async () => {
		fs.mkdirSync(path.join(pi.dir, ".pi"), { recursive: true });
		fs.writeFileSync(path.join(pi.dir, ".pi", "presets.json"), JSON.stringify({ fast: { thinkingLevel: "low" }, deep: { thinkingLevel: "high" } }));
		await event("preset", { type: "session_start", reason: "startup" }, 0);
		pi.answers.set("ui", "manual");
		const done = pi.request("command", { ext: ext("preset"), name: "preset", args: "" });
		const custom = await pi.waitRequest("ui", (p) => p.method === "custom");
		const id = custom.params.args.component;
		const drawn = await pi.request("render", { kind: "component", component: id, width: 60 });
		assert.ok(drawn.lines.some((l) => l.includes("Select Preset")));
		await pi.request("input", { component: id, data: "\x1b[B" }); // down
		await pi.waitNotify("redraw", (p) => p.component === id);
		await pi.request("input", { component: id, data: "\r" });
		const closed = await pi.waitNotify("component_done", (p) => p.component === id);
		assert.equal(closed.params.value, "deep");
		pi.respond(custom.id, null);
		await done;
		await pi.waitRequest("set_thinking_level", (p) => p.level === "high");
		pi.answers.delete("ui");
	});

	test("custom-footer: a footer component with footer data", async () => {
		pi.notify("state", { gitBranch: "main" });
		await pi.request("command", { ext: ext("custom-footer"), name: "footer", args: "" });
		const footer = await pi.waitRequest("ui", (p) => p.method === "setFooter" && p.args[0] !== null);
		const out = await pi.request("render", { kind: "footer", component: footer.params.args[0].component, width: 60 });
		assert.equal(out.lines.length, 1);
		assert.match(out.lines[0], /m1 \(main\)/);
	});

	test("widget-placement: string widgets with placement", async () => {
		await event("widget-placement", { type: "session_start", reason: "startup" });
		const widgets = pi.ui("setWidget");
		assert.deepEqual(widgets.at(-2), ["widget-above", ["Above editor widget"], {}]);
		assert.deepEqual(widgets.at(-1), ["widget-below", ["Below editor widget"], { placement: "belowEditor" }]);
	});

	test("timed-confirm: dialog options go to pi-rs (the signal stays in the host)", async () => {
		pi.answers.set("ui", (p) => (p.method === "confirm" ? true : null));
		await pi.request("command", { ext: ext("timed-confirm"), name: "timed", args: "" });
		const [, , opts] = pi.ui("confirm").at(-1);
		assert.deepEqual(opts, { timeout: 5000 });
		assert.equal(lastNotify()[0], "Confirmed by user!");
		pi.answers.delete("ui");
	});

	test("timed-confirm's AbortSignal dismisses the dialog: the host sends `cancel` for it", { timeout: 10000 }, async () => {
		pi.answers.set("ui", "manual");
		const done = pi.request("command", { ext: ext("timed-confirm"), name: "timed-signal", args: "" });
		const confirm = await pi.waitRequest("ui", (p) => p.method === "confirm");
		await pi.waitNotify("cancel", (p) => p.id === confirm.id, 8000);
		for (const r of pi.requests) if (r.method === "ui" && !r.__replied && r.params.method !== "confirm") pi.respond(r.id, null);
		await done;
		pi.answers.delete("ui");
		await pi.waitRequest("ui", (p) => p.method === "notify" && p.args[0] === "Dialog timed out (auto-cancelled)");
	});

	test("qna: BorderedLoader in a custom component, model_auth, complete(), editor text", async () => {
		pi.answers.set("model_auth", () => ({ ok: true, apiKey: "k", headers: {} }));
		pi.answers.set("model_stream", (params) => {
			assert.equal(params.options.apiKey, "k");
			return { role: "assistant", content: [{ type: "text", text: "Q: Why?\nA: " }], stopReason: "stop" };
		});
		pi.answers.set("ui", (p) => (p.method === "custom" ? new Promise(() => {}) : null));
		await pi.request("command", { ext: ext("qna"), name: "qna", args: "" });
		const done = pi.notifications.findLast((n) => n.method === "component_done");
		assert.equal(done.params.value, "Q: Why?\nA: ");
		assert.deepEqual(pi.ui("setEditorText").at(-1), ["Q: Why?\nA: "]);
		assert.equal(lastNotify()[0], "Questions loaded. Edit and submit when ready.");
		pi.answers.delete("ui");
	});
});
