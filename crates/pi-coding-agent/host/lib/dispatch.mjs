// What pi-rs asks of the host (docs/extension-protocol.md, "pi-rs → host"): run a handler,
// a tool, a command, a shortcut, completions, a render hook, a key for a component. Each
// runs with its own ctx whose signal aborts on `cancel`. pi-rs applies pi's rules to the
// answers; this module only calls the extension and returns what it said as JSON.

import * as components from "./components.mjs";
import { createCommandContext, createContext } from "./context.mjs";
import { host } from "./host.mjs";
import { unsupported } from "./strict.mjs";
import { currentTheme } from "./theme.mjs";

/** @param {number} index */
function extension(index) {
	const ext = host.extensions[index];
	if (!ext) throw new Error(`no loaded extension ${index}`);
	return ext;
}

/** Events whose pi object carries the run's AbortSignal. */
const SIGNAL_EVENTS = new Set(["session_before_compact", "session_before_tree"]);

/** The transcript of the last `context` event, as pi-rs sent it (see runEvent). @type {any[]} */
let contextBase = [];

/** `event {ext, handler, event}`. @param {any} params @param {{id: number, signal: AbortSignal}} request */
export async function runEvent(params, request) {
	const ext = extension(params.ext);
	const handler = ext.handlers[params.handler];
	if (!handler) throw new Error(`extension ${params.ext} has no handler ${params.handler}`);
	const event = params.event;
	if (event?.type === "context" && event.messagesDelta) {
		// The transcript comes as a delta against the last one: rebuild it, and give the
		// handler its own copy (pi's structuredClone), so what it changes stays its own.
		const { keep, append } = event.messagesDelta;
		contextBase = contextBase.slice(0, keep).concat(append ?? []);
		delete event.messagesDelta;
		event.messages = structuredClone(contextBase);
	}
	if (SIGNAL_EVENTS.has(event?.type)) event.signal = request.signal;
	const before = event?.type === "tool_call" ? JSON.stringify(event.input ?? null) : undefined;
	const result = await handler.fn(event, createContext(ext.index, request.signal));
	if (event?.type === "user_bash" && result?.operations)
		throw unsupported("user_bash {operations}", "pi-rs runs the command itself; return {result} instead");
	if (before !== undefined && JSON.stringify(event.input ?? null) !== before) {
		// pi's handlers change event.input in place; pi-rs gets the change as `input`.
		return { ...(result && typeof result === "object" ? result : {}), input: event.input };
	}
	if (event && SIGNAL_EVENTS.has(event.type)) delete event.signal;
	return result ?? null;
}

/** `tool {ext, name, toolCallId, params}`. @param {any} params @param {{id: number, signal: AbortSignal}} request */
export async function runTool(params, request) {
	const ext = extension(params.ext);
	const tool = ext.tools.get(params.name);
	if (!tool) throw new Error(`extension ${params.ext} has no tool ${params.name}`);
	const onUpdate = (/** @type {any} */ partial) => host.conn?.notify("tool_update", { id: request.id, partial: partial ?? null });
	const result = await tool.execute(params.toolCallId, params.params, request.signal, onUpdate, createContext(ext.index, request.signal));
	if (!result || typeof result !== "object") throw new Error(`tool ${params.name} returned no result object`);
	return result;
}

/** `prepare_arguments {ext, name, args}`: the tool's prepareArguments. @param {any} params */
export function prepareArguments(params) {
	const tool = extension(params.ext).tools.get(params.name);
	if (!tool) throw new Error(`extension ${params.ext} has no tool ${params.name}`);
	return typeof tool.prepareArguments === "function" ? tool.prepareArguments(params.args) : params.args;
}

/** `command {ext, name, args}`. @param {any} params @param {{signal: AbortSignal}} request */
export async function runCommand(params, request) {
	const ext = extension(params.ext);
	const command = ext.commands.get(params.name);
	if (!command) throw new Error(`extension ${params.ext} has no command ${params.name}`);
	await command.handler(params.args ?? "", createCommandContext(ext.index, request.signal));
	return null;
}

/** `completions {ext, name, prefix}`. @param {any} params */
export async function completions(params) {
	const command = extension(params.ext).commands.get(params.name);
	if (!command?.getArgumentCompletions) return null;
	const items = await command.getArgumentCompletions(params.prefix ?? "");
	return Array.isArray(items) ? items : null;
}

/** `shortcut {ext, key}`. @param {any} params @param {{signal: AbortSignal}} request */
export async function runShortcut(params, request) {
	const ext = extension(params.ext);
	const shortcut = ext.shortcuts.get(params.key);
	if (!shortcut) throw new Error(`extension ${params.ext} has no shortcut ${params.key}`);
	await shortcut.handler(createContext(ext.index, request.signal));
	return null;
}

/** Per tool call: the renderers' shared state and their last components. @type {Map<string, {state: object, call?: any, result?: any}>} */
const toolRows = new Map();
const MAX_ROWS = 1000;

/** @param {string} toolCallId */
function toolRow(toolCallId) {
	let row = toolRows.get(toolCallId);
	if (!row) {
		row = { state: {} };
		toolRows.set(toolCallId, row);
		if (toolRows.size > MAX_ROWS) toolRows.delete(toolRows.keys().next().value);
	}
	return row;
}

/** @param {any} component @param {number} width */
function linesOf(component, width) {
	if (component === undefined || component === null) return null;
	return { lines: components.checkLines(component.render(width)) };
}

/** `render {kind, ...}`. @param {any} params */
export function render(params) {
	const width = params.width ?? host.state.terminal?.columns ?? 80;
	switch (params.kind) {
		case "call":
		case "result":
			return renderTool(params, width);
		case "message": {
			const renderer = extension(params.ext).messageRenderers.get(params.message?.customType);
			if (!renderer) return null;
			return linesOf(renderer(params.message, { expanded: Boolean(params.expanded) }, currentTheme()), width);
		}
		case "component":
		case "footer":
		case "header":
		case "widget":
		case "editor":
			return components.renderComponent(params.component, width);
		default:
			throw new Error(`unknown render kind: ${params.kind}`);
	}
}

/** @param {any} params @param {number} width */
function renderTool(params, width) {
	const tool = extension(params.ext).tools.get(params.name);
	const hook = params.kind === "call" ? tool?.renderCall : tool?.renderResult;
	if (typeof hook !== "function") return null;
	const row = toolRow(params.toolCallId);
	const context = {
		args: params.args ?? {},
		toolCallId: params.toolCallId,
		invalidate: () => host.conn?.notify("redraw", { toolCallId: params.toolCallId }),
		lastComponent: row[params.kind],
		state: row.state,
		cwd: host.run.cwd,
		executionStarted: Boolean(params.executionStarted),
		argsComplete: params.argsComplete ?? true,
		isPartial: Boolean(params.isPartial),
		expanded: Boolean(params.expanded),
		showImages: Boolean(params.showImages),
		isError: Boolean(params.isError),
	};
	const component =
		params.kind === "call"
			? hook(context.args, currentTheme(), context)
			: hook(params.result ?? { content: [] }, { expanded: context.expanded, isPartial: context.isPartial }, currentTheme(), context);
	row[params.kind] = component;
	return linesOf(component, width);
}

/** `input {component, data}`. @param {any} params */
export function input(params) {
	return components.inputComponent(params.component, params.data);
}
