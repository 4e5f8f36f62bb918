// Components the host draws for pi-rs: custom dialogs (`ctx.ui.custom`), footers, headers,
// widgets and editors built from extension factories. Each has a numeric id; pi-rs asks for
// its lines (`render {kind: "component", component, width}`) and sends it keys (`input`);
// the host tells pi-rs when it wants a redraw (`redraw`) and when it is done
// (`component_done`). Factories get a `tui` that supports what components use headlessly
// (requestRender, terminal size, invalidate) and fails loudly on the rest.

import { host, log } from "./host.mjs";
import { strictObject } from "./strict.mjs";

/** @typedef {{id: number, ext: number, kind: string, component: any, close?: (value?: any) => void, redrawQueued: boolean}} Shown */

let nextId = 1;
/** @type {Map<number, Shown>} */
const shown = new Map();

/** A new component id. */
export function allocateId() {
	return nextId++;
}

/** The `tui` a factory of component `id` gets. @param {number} id */
export function createTui(id) {
	const terminal = strictObject(
		{
			get columns() {
				return host.state.terminal?.columns ?? 80;
			},
			get rows() {
				return host.state.terminal?.rows ?? 24;
			},
		},
		"tui.terminal",
		"the host has no terminal: pi-rs draws",
	);
	const tui = {
		terminal,
		/** pi's `tui.requestRender()`: tells pi-rs to draw again (once per tick). */
		requestRender() {
			requestRedraw(id);
		},
		invalidate() {
			shown.get(id)?.component?.invalidate?.();
			requestRedraw(id);
		},
	};
	return strictObject(tui, "tui", "components run in the extension host; pi-rs owns the terminal");
}

/** @param {number} id */
export function requestRedraw(id) {
	const entry = shown.get(id);
	if (entry) {
		if (entry.redrawQueued) return;
		entry.redrawQueued = true;
		setImmediate(() => {
			entry.redrawQueued = false;
			if (shown.has(id)) host.conn?.notify("redraw", { component: id });
		});
		return;
	}
	// Not registered yet (a factory that asks for a render while it builds): one redraw.
	setImmediate(() => host.conn?.notify("redraw", { component: id }));
}

/** Records a built component. @param {number} id @param {number} ext @param {string} kind @param {any} component @param {(value?: any) => void} [close] */
export function register(id, ext, kind, component, close) {
	if (!component || typeof component.render !== "function")
		throw new TypeError(`the ${kind} factory did not return a component (an object with render(width))`);
	shown.set(id, { id, ext, kind, component, close, redrawQueued: false });
}

/** @param {number} id */
export function get(id) {
	return shown.get(id);
}

/** Removes and disposes a component. @param {number} id */
export function dispose(id) {
	const entry = shown.get(id);
	if (!entry) return;
	shown.delete(id);
	try {
		entry.component.dispose?.();
	} catch (err) {
		log("warn", `dispose of component ${id} failed: ${err instanceof Error ? err.message : err}`);
	}
}

/** Disposes every component of one kind for an extension, or all of a kind (`ext` undefined). @param {string} kind @param {number} [ext] @param {string} [key] */
export function disposeWhere(kind, ext, key) {
	for (const entry of [...shown.values()]) {
		if (entry.kind === kind && (ext === undefined || entry.ext === ext) && (key === undefined || entry.key === key)) dispose(entry.id);
	}
}

/** `render {kind: "component"...}`: the component's lines at `width`. @param {number} id @param {number} width */
export function renderComponent(id, width) {
	const entry = shown.get(id);
	if (!entry) throw new Error(`no component ${id}`);
	return { lines: checkLines(entry.component.render(width)) };
}

/**
 * `input {component, data}`: `null`, or for an editor what the key did: `{pass: true}` (an app
 * key the editor hands back to pi-rs) or `{submit: text}`.
 * @param {number} id @param {string} data
 */
export function inputComponent(id, data) {
	const entry = shown.get(id);
	if (!entry) throw new Error(`no component ${id}`);
	entry.outcome = null;
	entry.component.handleInput?.(data);
	requestRedraw(id);
	const outcome = entry.outcome;
	entry.outcome = null;
	return outcome;
}

/** What a key did in editor `id` (see `inputComponent`). @param {number} id @param {any} outcome */
export function setOutcome(id, outcome) {
	const entry = shown.get(id);
	if (entry) entry.outcome = outcome;
}

/** `component_close {component}`: pi-rs closed it (mode change, Ctrl+C). @param {number} id */
export function closedByPiRs(id) {
	const entry = shown.get(id);
	if (!entry) return;
	const close = entry.close;
	dispose(id);
	close?.(undefined);
}

/** The lines a render returned, checked. @param {unknown} lines @returns {string[]} */
export function checkLines(lines) {
	if (!Array.isArray(lines)) throw new TypeError("render(width) did not return an array of lines");
	return lines.map((line) => (typeof line === "string" ? line : String(line ?? "")));
}

/** Tags an entry with a key (widgets are per key). @param {number} id @param {string} key */
export function setKey(id, key) {
	const entry = shown.get(id);
	if (entry) entry.key = key;
}
