// One loaded extension: what it registered (handlers in order, tools, commands, shortcuts,
// flags, providers, message renderers) and the JSON pi-rs gets of it (the protocol's
// `Loaded` record, and `register` for registrations after load).

import { unsupported } from "./strict.mjs";

/** A JSON copy of a value (TypeBox schemas are plain JSON objects). @param {any} value */
function json(value) {
	return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

export class Extension {
	/** @param {number} index @param {string} path @param {string} resolvedPath */
	constructor(index, path, resolvedPath) {
		this.index = index;
		this.path = path;
		this.resolvedPath = resolvedPath;
		/** Handlers in registration order; a handler's number is its place here. @type {{event: string, fn: Function}[]} */
		this.handlers = [];
		/** @type {Map<string, any>} */
		this.tools = new Map();
		/** @type {Map<string, any>} */
		this.commands = new Map();
		/** @type {Map<string, any>} */
		this.shortcuts = new Map();
		/** @type {Map<string, any>} */
		this.flags = new Map();
		/** @type {Map<string, any>} */
		this.providers = new Map();
		/** @type {Map<string, Function>} */
		this.messageRenderers = new Map();
		/** False while the factory runs: registrations then go into the `load` answer. */
		this.loaded = false;
		/** Set when pi-rs reloads or the session is replaced: the API then throws (pi's stale ctx). */
		this.staleMessage = undefined;
	}

	/** The protocol's `Loaded` record. */
	toLoaded() {
		return {
			path: this.path,
			error: null,
			handlers: this.handlers.map((h) => h.event),
			tools: [...this.tools.values()].map(toolJson),
			commands: [...this.commands.values()].map(commandJson),
			shortcuts: [...this.shortcuts.values()].map(shortcutJson),
			flags: [...this.flags.values()].map(flagJson),
			providers: [...this.providers.entries()].map(([name, config]) => providerJson(name, config)),
			messageRenderers: [...this.messageRenderers.keys()],
		};
	}
}

/** A `Loaded` record of an extension that failed to load. @param {string} path @param {string} error */
export function failedLoaded(path, error) {
	return {
		path,
		error,
		handlers: [],
		tools: [],
		commands: [],
		shortcuts: [],
		flags: [],
		providers: [],
		messageRenderers: [],
	};
}

/** @param {any} tool */
export function toolJson(tool) {
	return {
		name: tool.name,
		label: tool.label ?? tool.name,
		description: tool.description ?? "",
		parameters: json(tool.parameters ?? { type: "object", properties: {} }),
		promptSnippet: tool.promptSnippet ?? null,
		promptGuidelines: Array.isArray(tool.promptGuidelines) ? tool.promptGuidelines : [],
		executionMode: tool.executionMode ?? null,
		renderCall: typeof tool.renderCall === "function",
		renderResult: typeof tool.renderResult === "function",
		renderShell: tool.renderShell ?? "default",
		prepareArguments: typeof tool.prepareArguments === "function",
	};
}

/** @param {any} command */
export function commandJson(command) {
	return {
		name: command.name,
		description: command.description ?? null,
		completions: typeof command.getArgumentCompletions === "function",
	};
}

/** @param {any} shortcut */
export function shortcutJson(shortcut) {
	return { key: shortcut.shortcut, description: shortcut.description ?? null };
}

/** @param {any} flag */
export function flagJson(flag) {
	return { name: flag.name, description: flag.description ?? null, type: flag.type, default: flag.default ?? null };
}

/** @param {string} name @param {any} config */
export function providerJson(name, config) {
	return { name, config: json(config) };
}

/** Checks that a provider config can cross the protocol. @param {string} name @param {any} config */
export function checkProviderConfig(name, config) {
	if (!config || typeof config !== "object") throw new Error(`registerProvider("${name}"): config must be an object`);
	if (typeof config.streamSimple === "function")
		throw unsupported(`registerProvider("${name}", {streamSimple})`, "pi-rs streams models itself; a custom stream handler cannot run in pi-rs");
	if (config.oauth)
		throw unsupported(`registerProvider("${name}", {oauth})`, "extension OAuth providers cannot log in through pi-rs");
}
