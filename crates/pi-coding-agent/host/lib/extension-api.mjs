// pi's `ExtensionAPI` (the `pi` object handed to an extension's factory). Registrations
// write to the extension's record (and, after load, go to pi-rs as `register`); actions
// become host → pi-rs requests; reads come from the mirrored state.

import { eventBus } from "./event-bus.mjs";
import { execCommand } from "./exec.mjs";
import { conn, fireAndForget, host } from "./host.mjs";
import {
	checkProviderConfig,
	commandJson,
	flagJson,
	providerJson,
	shortcutJson,
	toolJson,
} from "./registry.mjs";

const NOT_INITIALIZED = "Extension runtime not initialized. Action methods cannot be called during extension loading.";

/** @param {import("./registry.mjs").Extension} ext */
function assertLoaded(ext) {
	if (ext.staleMessage) throw new Error(ext.staleMessage);
	if (!ext.loaded) throw new Error(NOT_INITIALIZED);
}

/** @param {import("./registry.mjs").Extension} ext */
function assertActive(ext) {
	if (ext.staleMessage) throw new Error(ext.staleMessage);
}

/** After load, a registration goes to pi-rs at once. @param {import("./registry.mjs").Extension} ext @param {object} what */
function registerLater(ext, what) {
	if (ext.loaded) fireAndForget("register", { ext: ext.index, ...what });
}

/** @param {import("./registry.mjs").Extension} ext */
export function createExtensionAPI(ext) {
	const api = {
		/** @param {string} event @param {Function} handler */
		on(event, handler) {
			assertActive(ext);
			if (typeof handler !== "function") throw new TypeError(`pi.on("${event}"): the handler is not a function`);
			ext.handlers.push({ event, fn: handler });
			registerLater(ext, { handlers: [event] });
		},
		/** @param {any} tool */
		registerTool(tool) {
			assertActive(ext);
			if (!tool || typeof tool.name !== "string") throw new TypeError("pi.registerTool: the tool has no name");
			if (typeof tool.execute !== "function") throw new TypeError(`pi.registerTool("${tool.name}"): execute is not a function`);
			ext.tools.set(tool.name, tool);
			registerLater(ext, { tools: [toolJson(tool)] });
		},
		/** @param {string} name @param {any} options */
		registerCommand(name, options) {
			assertActive(ext);
			const command = { name, ...options };
			ext.commands.set(name, command);
			registerLater(ext, { commands: [commandJson(command)] });
		},
		/** @param {string} shortcut @param {any} options */
		registerShortcut(shortcut, options) {
			assertActive(ext);
			const entry = { shortcut, extensionPath: ext.path, ...options };
			ext.shortcuts.set(shortcut, entry);
			registerLater(ext, { shortcuts: [shortcutJson(entry)] });
		},
		/** @param {string} name @param {any} options */
		registerFlag(name, options) {
			assertActive(ext);
			const flag = { name, extensionPath: ext.path, ...options };
			ext.flags.set(name, flag);
			if (options?.default !== undefined && !(name in host.state.flags)) host.state.flags[name] = options.default;
			registerLater(ext, { flags: [flagJson(flag)] });
		},
		/** @param {string} customType @param {Function} renderer */
		registerMessageRenderer(customType, renderer) {
			assertActive(ext);
			ext.messageRenderers.set(customType, renderer);
			registerLater(ext, { messageRenderers: [customType] });
		},
		/** @param {string} name */
		getFlag(name) {
			assertActive(ext);
			if (!ext.flags.has(name)) return undefined;
			const value = host.state.flags[name];
			return value === null ? undefined : value;
		},
		/** @param {any} message @param {any} [options] */
		sendMessage(message, options) {
			assertLoaded(ext);
			const { customType, content, display, details } = message ?? {};
			fireAndForget("send_message", {
				ext: ext.index,
				message: { customType, content, display: display ?? true, details: details ?? null },
				options: options ?? {},
			});
		},
		/** @param {any} content @param {any} [options] */
		sendUserMessage(content, options) {
			assertLoaded(ext);
			fireAndForget("send_user_message", { ext: ext.index, content, options: options ?? {} });
		},
		/** @param {string} customType @param {unknown} [data] */
		appendEntry(customType, data) {
			assertLoaded(ext);
			fireAndForget("append_entry", { ext: ext.index, customType, data: data === undefined ? null : data });
		},
		/** @param {string} name */
		setSessionName(name) {
			assertLoaded(ext);
			pendingSessionName = name;
			fireAndForget("set_session_name", { name });
		},
		getSessionName() {
			assertLoaded(ext);
			return pendingSessionName !== undefined ? pendingSessionName.trim() || undefined : host.session.getSessionName();
		},
		/** @param {string} entryId @param {string|undefined} label */
		setLabel(entryId, label) {
			assertLoaded(ext);
			fireAndForget("set_label", { entryId, label: label || null });
		},
		/** @param {string} command @param {string[]} args @param {any} [options] */
		exec(command, args, options) {
			assertActive(ext);
			return execCommand(command, args, options?.cwd ?? host.run.cwd, options);
		},
		getActiveTools() {
			assertLoaded(ext);
			return [...host.state.activeTools];
		},
		getAllTools() {
			assertLoaded(ext);
			return host.state.allTools.map((t) => ({ ...t }));
		},
		/** @param {string[]} names */
		setActiveTools(names) {
			assertLoaded(ext);
			// pi-rs keeps the names it knows and sends `activeTools`; until then, read back what was set.
			const known = new Set(host.state.allTools.map((t) => t.name));
			host.state.activeTools = names.filter((n) => known.size === 0 || known.has(n));
			fireAndForget("set_active_tools", { names: [...names] });
		},
		getCommands() {
			assertLoaded(ext);
			return host.state.commands.map((c) => ({ ...c }));
		},
		/** @param {any} model @returns {Promise<boolean>} */
		async setModel(model) {
			assertLoaded(ext);
			return Boolean(await conn("setModel").request("set_model", { provider: model.provider, id: model.id }));
		},
		getThinkingLevel() {
			assertLoaded(ext);
			return host.state.thinkingLevel;
		},
		/** @param {string} level */
		setThinkingLevel(level) {
			assertLoaded(ext);
			fireAndForget("set_thinking_level", { level });
		},
		/** @param {string} name @param {any} config */
		registerProvider(name, config) {
			assertActive(ext);
			checkProviderConfig(name, config);
			ext.providers.set(name, config);
			registerLater(ext, { providers: [providerJson(name, config)] });
		},
		/** @param {string} name */
		unregisterProvider(name) {
			assertActive(ext);
			ext.providers.delete(name);
			if (ext.loaded) fireAndForget("unregister", { ext: ext.index, providers: [name] });
		},
		events: eventBus,
	};
	return api;
}

/** A name set by `setSessionName` that pi-rs has not yet mirrored back (pi's setter is synchronous). */
let pendingSessionName;
/** The session mirror got a newer name (or was reset): forget the pending one. */
export function clearPendingSessionName() {
	pendingSessionName = undefined;
}
