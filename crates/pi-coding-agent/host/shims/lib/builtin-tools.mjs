// pi's built-in tool factories (`createReadTool(cwd)`, `createBashToolDefinition(cwd)`, ...)
// for extensions: each runs pi-rs's own tool through the `builtin_tool` request. Their
// descriptions and schemas are pi-rs's (sent in `load` as `builtinTools`). The `operations`
// and `spawnHook` options (pluggable I/O that would have to run inside pi-rs's tool) are not
// supported: passing one throws an error naming it; the other options go to pi-rs as given.

import { conn, host } from "../../lib/host.mjs";
import { unsupported } from "../../lib/strict.mjs";

export const BUILTIN_TOOL_NAMES = ["read", "bash", "edit", "write", "grep", "find", "ls"];

/** pi-rs's definition of a built-in tool. @param {string} name */
function definitionOf(name) {
	const def = (host.run.builtinTools ?? []).find((t) => t.name === name);
	if (!def) throw new Error(`pi-rs extension host: pi-rs sent no definition of its built-in "${name}" tool (load.builtinTools)`);
	return def;
}

/** @param {string} name @param {any} options */
function checkOptions(name, options) {
	if (!options) return {};
	if (options.operations !== undefined)
		throw unsupported(`create${cap(name)}Tool({operations})`, "pi-rs runs its own built-in tools; custom operations cannot run there");
	if (options.spawnHook !== undefined)
		throw unsupported(`create${cap(name)}Tool({spawnHook})`, "pi-rs spawns its own bash; a spawn hook cannot run there");
	return JSON.parse(JSON.stringify(options));
}

/** @param {string} s */
const cap = (s) => s[0].toUpperCase() + s.slice(1);

/**
 * Runs pi-rs's built-in tool. `onUpdate` gets the partial results pi-rs streams back
 * (`builtin_tool_update`); an aborted `signal` cancels the request.
 * @param {string} name @param {string} cwd @param {object} options
 * @param {string} toolCallId @param {any} params @param {AbortSignal} [signal] @param {Function} [onUpdate]
 */
export function runBuiltinTool(name, cwd, options, toolCallId, params, signal, onUpdate) {
	const connection = conn(`${name} tool`);
	let id;
	const onAbort = () => {
		if (id !== undefined) connection.notify("cancel", { id });
	};
	if (signal?.aborted) return Promise.reject(new Error("Operation aborted"));
	signal?.addEventListener("abort", onAbort, { once: true });
	const request = connection.request("builtin_tool", { name, toolCallId, params, cwd, options }, (requestId) => {
		id = requestId;
		if (onUpdate) builtinUpdates.set(requestId, onUpdate);
	});
	return request.finally(() => {
		signal?.removeEventListener("abort", onAbort);
		builtinUpdates.delete(id);
	});
}

/** onUpdate callbacks of `builtin_tool` requests in flight, by request id. @type {Map<number, Function>} */
export const builtinUpdates = new Map();

/** pi's ToolDefinition of a built-in (execute gets the extension ctx as 5th argument). @param {string} name */
export function createToolDefinition(name, cwd, options) {
	const opts = checkOptions(name, options);
	const def = definitionOf(name);
	return {
		name,
		label: def.label ?? name,
		description: def.description,
		parameters: def.parameters,
		promptSnippet: def.promptSnippet ?? undefined,
		promptGuidelines: def.promptGuidelines ?? undefined,
		execute: (toolCallId, params, signal, onUpdate) => runBuiltinTool(name, cwd, opts, toolCallId, params, signal, onUpdate),
	};
}

/** pi's AgentTool of a built-in. @param {string} name */
export function createTool(name, cwd, options) {
	const { promptSnippet: _s, promptGuidelines: _g, ...tool } = createToolDefinition(name, cwd, options);
	return tool;
}
