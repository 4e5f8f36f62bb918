// A stand-in for pi-rs in the host's tests: listens on a Unix socket in a temp dir, starts
// `node main.mjs` with PI_EXTENSION_SOCKET, and speaks the protocol: requests to the host,
// answers to the host's requests (scripted per method, recorded), notifications both ways.

import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const HOST_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const FIXTURES = path.join(HOST_DIR, "test", "fixtures");
export const PI_PKG =
	process.env.PI_CODING_AGENT_PKG ?? "/work/main/.tools/npm/node_modules/@mariozechner/pi-coding-agent";
export const EXAMPLES = path.join(PI_PKG, "examples", "extensions");

/** Built-in tool definitions as pi-rs sends them in `load` (a subset is enough for tests). */
export const BUILTIN_TOOLS = [
	{
		name: "read",
		label: "read",
		description: "Read the contents of a file.",
		parameters: { type: "object", required: ["path"], properties: { path: { type: "string" } } },
		promptSnippet: "Read file contents",
		promptGuidelines: [],
	},
	{
		name: "bash",
		label: "bash",
		description: "Execute a bash command.",
		parameters: { type: "object", required: ["command"], properties: { command: { type: "string" } } },
		promptSnippet: "Execute bash commands",
		promptGuidelines: [],
	},
];

export class FakePiRs {
	constructor() {
		this.dir = fs.mkdtempSync(path.join(os.tmpdir(), "pi-host-test-"));
		this.socketPath = path.join(this.dir, "host.sock");
		this.nextId = 0;
		/** @type {Map<number, {resolve: Function, reject: Function}>} */
		this.pending = new Map();
		/** Every host → pi-rs request: {id, method, params}. */
		this.requests = [];
		/** Every host → pi-rs notification: {method, params}. */
		this.notifications = [];
		/** Scripted answers by method: (params, request) => result | Promise | {error}. */
		this.answers = new Map();
		/** Waiters for host messages. */
		this.waiters = [];
		this.stdout = "";
		this.stderr = "";
		this.buffer = "";
	}

	/** Starts the host and waits for `hello`. @param {Record<string, string>} [env] */
	async start(env = {}) {
		this.server = net.createServer();
		const connected = new Promise((resolve) => this.server.once("connection", resolve));
		await new Promise((resolve) => this.server.listen(this.socketPath, resolve));
		this.child = spawn(process.execPath, [path.join(HOST_DIR, "main.mjs")], {
			cwd: this.dir,
			env: { ...process.env, ...env, PI_EXTENSION_SOCKET: this.socketPath },
			stdio: ["ignore", "pipe", "pipe"],
		});
		this.child.stdout.on("data", (d) => {
			this.stdout += d;
		});
		this.child.stderr.on("data", (d) => {
			this.stderr += d;
		});
		this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
		this.socket = /** @type {net.Socket} */ (await connected);
		this.socket.setEncoding("utf8");
		this.socket.setNoDelay(true);
		this.socket.on("data", (chunk) => this.onData(chunk));
		this.hello = await this.waitNotify("hello");
		return this;
	}

	/** @param {string} chunk */
	onData(chunk) {
		this.buffer += chunk;
		let nl;
		while ((nl = this.buffer.indexOf("\n")) !== -1) {
			const line = this.buffer.slice(0, nl);
			this.buffer = this.buffer.slice(nl + 1);
			if (line) this.onMessage(JSON.parse(line));
		}
	}

	/** @param {any} msg */
	onMessage(msg) {
		if (msg.kind === "response") {
			const waiter = this.pending.get(msg.id);
			this.pending.delete(msg.id);
			if (msg.error) waiter?.reject(Object.assign(new Error(msg.error.message), { remote: msg.error }));
			else waiter?.resolve(msg.result);
			return;
		}
		if (msg.kind === "notify") this.notifications.push(msg);
		if (msg.kind === "request") {
			this.requests.push(msg);
			this.answer(msg);
		}
		for (const waiter of [...this.waiters]) {
			if (waiter.match(msg)) {
				this.waiters.splice(this.waiters.indexOf(waiter), 1);
				waiter.resolve(msg);
			}
		}
	}

	/** @param {any} msg */
	async answer(msg) {
		const script = this.answers.get(msg.method);
		if (script === "manual") return; // the test answers with respond()
		if (script) msg.__answered = true;
		try {
			const result = script ? await script(msg.params, msg) : null;
			if (result && typeof result === "object" && "__error" in result) this.respond(msg.id, undefined, result.__error);
			else this.respond(msg.id, result ?? null);
		} catch (err) {
			this.respond(msg.id, undefined, err.message);
		}
	}

	/** @param {number} id @param {any} result @param {string} [error] */
	respond(id, result, error) {
		const msg = error ? { kind: "response", id, error: { message: error } } : { kind: "response", id, result };
		this.socket.write(`${JSON.stringify(msg)}\n`);
	}

	/** @param {string} method @param {any} params */
	request(method, params) {
		const id = this.nextId++;
		return new Promise((resolve, reject) => {
			this.pending.set(id, { resolve, reject });
			this.socket.write(`${JSON.stringify({ kind: "request", id, method, params })}\n`);
		}).then((r) => r);
	}

	/** Sends a request and returns its id along with the promise. @param {string} method @param {any} params */
	requestWithId(method, params) {
		const id = this.nextId;
		return { id, promise: this.request(method, params) };
	}

	/** @param {string} method @param {any} params */
	notify(method, params) {
		this.socket.write(`${JSON.stringify({ kind: "notify", method, params })}\n`);
	}

	/** @param {(msg: any) => boolean} match @param {number} [timeout] */
	waitFor(match, timeout = 5000) {
		const seen = [...this.notifications, ...this.requests].find((m) => !m.__consumed && !m.__answered && match(m));
		if (seen) {
			seen.__consumed = true;
			return Promise.resolve(seen);
		}
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`timed out waiting for a host message; got ${JSON.stringify(this.requests.slice(-5))}`)), timeout);
			this.waiters.push({
				match,
				resolve: (msg) => {
					clearTimeout(timer);
					msg.__consumed = true;
					resolve(msg);
				},
			});
		});
	}

	/** @param {string} method @param {(params: any) => boolean} [where] */
	waitNotify(method, where = () => true, timeout = 5000) {
		return this.waitFor((m) => m.kind === "notify" && m.method === method && where(m.params), timeout);
	}

	/** @param {string} method @param {(params: any) => boolean} [where] */
	waitRequest(method, where = () => true) {
		return this.waitFor((m) => m.kind === "request" && m.method === method && where(m.params));
	}

	/** `ui` requests of one method so far. @param {string} method */
	ui(method) {
		return this.requests.filter((r) => r.method === "ui" && r.params.method === method).map((r) => r.params.args);
	}

	/** The `load` request. @param {string[]} paths @param {object} [extra] */
	load(paths, extra = {}) {
		return this.request("load", {
			protocol: 1,
			cwd: this.dir,
			agentDir: path.join(this.dir, "agent"),
			mode: "interactive",
			hasUI: true,
			builtinTools: BUILTIN_TOOLS,
			extensions: paths.map((p) => ({ path: p })),
			...extra,
		});
	}

	async stop() {
		if (this.child.exitCode === null) {
			try {
				await Promise.race([this.request("shutdown", {}), new Promise((r) => setTimeout(r, 1000))]);
			} catch {
				// already gone
			}
			const timer = setTimeout(() => this.child.kill("SIGKILL"), 2000);
			await this.exited;
			clearTimeout(timer);
		}
		this.server.close();
		fs.rmSync(this.dir, { recursive: true, force: true });
	}
}

/** An example extension of pi's package. @param {string} name */
export function example(name) {
	const file = path.join(EXAMPLES, `${name}.ts`);
	return fs.existsSync(file) ? file : path.join(EXAMPLES, name);
}
