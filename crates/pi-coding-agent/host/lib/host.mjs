// The host's process-wide singletons: the connection to pi-rs, the mirrored state, the
// session mirror, the loaded extensions and what `load` said about the run. Every other
// module (and the shims extensions import) reaches pi-rs through here.

import { SessionView } from "./session-view.mjs";

/** Defaults of the mirrored state (docs/extension-protocol.md, "The mirrored state"). */
function initialState() {
	return {
		model: null,
		thinkingLevel: "off",
		activeTools: [],
		allTools: [],
		commands: [],
		flags: {},
		idle: true,
		pendingMessages: false,
		contextUsage: null,
		systemPrompt: "",
		models: { all: [], available: [] },
		editorText: "",
		toolsExpanded: false,
		theme: null,
		gitBranch: null,
		extensionStatuses: {},
		availableProviderCount: 0,
		terminal: { columns: 80, rows: 24 },
	};
}

export const host = {
	/** @type {import("./connection.mjs").Connection | null} */
	conn: null,
	state: initialState(),
	session: new SessionView(),
	/** @type {import("./registry.mjs").Extension[]} */
	extensions: [],
	/** What `load` said. */
	run: {
		cwd: process.cwd(),
		agentDir: "",
		mode: "print",
		hasUI: false,
		version: "0.73.1",
		piExecutable: null,
		/** pi-rs's definitions of its built-in tools (for createReadTool & co). @type {any[]} */
		builtinTools: [],
	},
	/** Listeners of state changes, by field. @type {Map<string, Set<(value: any) => void>>} */
	stateListeners: new Map(),
};

/** Applies a `state` patch and tells the listeners of the changed fields. @param {object} patch */
export function applyState(patch) {
	for (const [key, value] of Object.entries(patch)) {
		host.state[key] = value;
		const listeners = host.stateListeners.get(key);
		if (listeners) for (const listener of listeners) listener(value);
	}
}

/** @param {string} field @param {(value: any) => void} listener @returns {() => void} */
export function onState(field, listener) {
	let set = host.stateListeners.get(field);
	if (!set) host.stateListeners.set(field, (set = new Set()));
	set.add(listener);
	return () => set.delete(listener);
}

/** The connection, or an error naming what needed it. @param {string} what */
export function conn(what) {
	if (!host.conn || host.conn.closed) throw new Error(`pi-rs extension host: not connected to pi-rs (${what})`);
	return host.conn;
}

/** Sends a request whose answer nobody waits for; a failure is logged. @param {string} method @param {any} params */
export function fireAndForget(method, params) {
	conn(method)
		.request(method, params)
		.catch((err) => log("warn", `${method} failed: ${err?.message ?? err}`));
}

/** The `log` notification. @param {"debug"|"info"|"warn"|"error"} level @param {string} message */
export function log(level, message) {
	host.conn?.notify("log", { level, message });
}
