// `ctx.ui` (pi's ExtensionUIContext). With a UI, dialogs and display calls become `ui`
// requests to pi-rs; components are built and drawn here (components.mjs). Without one
// (`hasUI` false: print and json modes) it behaves as pi's no-op UI, locally.

import * as components from "./components.mjs";
import { conn, fireAndForget, host } from "./host.mjs";
import { keybindings } from "./keybindings.mjs";
import { strictObject, unsupported } from "./strict.mjs";
import { currentTheme, editorTheme, Theme } from "./theme.mjs";

/** What a dismissed dialog answers. */
const DISMISSED = { select: undefined, confirm: false, input: undefined, editor: undefined };

/** @param {string} method @param {any[]} args @param {AbortSignal} [signal] */
function dialog(method, args, signal) {
	const dismissed = DISMISSED[method];
	if (signal?.aborted) return Promise.resolve(dismissed);
	return new Promise((resolve, reject) => {
		let id;
		let done = false;
		const onAbort = () => {
			if (done) return;
			done = true;
			if (id !== undefined) host.conn?.notify("cancel", { id });
			resolve(dismissed);
		};
		signal?.addEventListener("abort", onAbort, { once: true });
		conn(`ctx.ui.${method}`)
			.request("ui", { method, args }, (requestId) => {
				id = requestId;
			})
			.then(
				(answer) => {
					signal?.removeEventListener("abort", onAbort);
					if (done) return;
					done = true;
					if (method === "confirm") resolve(Boolean(answer));
					else resolve(answer === null ? undefined : answer);
				},
				(err) => {
					signal?.removeEventListener("abort", onAbort);
					if (done) return;
					done = true;
					reject(err);
				},
			);
	});
}

/** Dialog options without the signal (it stays in the host). @param {any} opts */
function dialogOptions(opts) {
	if (!opts) return {};
	const { signal: _signal, ...rest } = opts;
	return rest;
}

/** @param {string} method @param {any[]} args */
function display(method, args) {
	fireAndForget("ui", { method, args });
}

/** The footer data provider a footer factory gets (git branch and statuses from the state). */
function footerData() {
	return {
		getGitBranch: () => host.state.gitBranch ?? null,
		getExtensionStatuses: () => new Map(Object.entries(host.state.extensionStatuses ?? {})),
		getAvailableProviderCount: () => host.state.availableProviderCount ?? 0,
		onBranchChange: (/** @type {() => void} */ callback) => onBranchChange(callback),
	};
}

/** @type {Set<() => void>} */
const branchListeners = new Set();

/**
 * An extension's editor as pi's interactive mode wires it: it starts with the editor's text,
 * submits through pi-rs (`{submit}`), and hands the app's keys (Escape, Ctrl+D on an empty
 * editor, Ctrl+P, Shift+Tab, ...) back to pi-rs (`{pass}`), which runs them as for its own editor.
 * @param {any} editor @param {number} id
 */
function wireEditor(editor, id) {
	if (!editor || typeof editor !== "object") return editor;
	const pass = () => components.setOutcome(id, { pass: true });
	if ("onEscape" in editor) editor.onEscape = pass;
	if ("onCtrlD" in editor) editor.onCtrlD = pass;
	if ("onPasteImage" in editor) editor.onPasteImage = pass;
	if (typeof editor.onAction === "function") {
		for (const action of EDITOR_APP_ACTIONS) editor.onAction(action, pass);
		// Ctrl+C clears the editor, then pi-rs arms its press-again-to-exit.
		editor.onAction("app.clear", () => {
			editor.setText?.("");
			pass();
		});
	}
	editor.onSubmit = (text) => components.setOutcome(id, { submit: String(text ?? "") });
	editor.onChange = (text) => {
		host.state.editorText = String(text ?? "");
	};
	if (typeof editor.setText === "function" && host.state.editorText) editor.setText(host.state.editorText);
	return editor;
}

/** The app actions pi's interactive mode gives its editor (and so an extension's). */
const EDITOR_APP_ACTIONS = [
	"app.suspend",
	"app.editor.external",
	"app.model.select",
	"app.model.cycleForward",
	"app.model.cycleBackward",
	"app.thinking.cycle",
	"app.thinking.toggle",
	"app.tools.expand",
	"app.message.followUp",
	"app.message.dequeue",
];

/** Terminal input listeners (`ctx.ui.onTerminalInput`), by id. @type {Map<number, Function>} */
const terminalListeners = new Map();
let nextTerminalListener = 1;

/**
 * `terminal_input {listener, data}`: the listener's answer for the key's bytes, as pi's
 * `TerminalInputHandler` result (`{consume}`, `{data}` or null to pass it on).
 * @param {any} params
 */
export function terminalInput(params) {
	const listener = terminalListeners.get(params.listener);
	if (!listener) return null;
	const result = listener(params.data);
	if (!result || typeof result !== "object") return null;
	const answer = {};
	if (result.consume) answer.consume = true;
	if (typeof result.data === "string") answer.data = result.data;
	return answer;
}
/** @param {() => void} callback */
function onBranchChange(callback) {
	branchListeners.add(callback);
	return () => branchListeners.delete(callback);
}
/** The `gitBranch` state changed. */
export function branchChanged() {
	for (const listener of branchListeners) listener();
}

/**
 * Builds a factory's component under a fresh id and tells pi-rs with `ui {method}`.
 * @param {number} ext @param {string} kind @param {(tui: any, id: number) => any} build
 * @param {(id: number) => [string, any[]]} describe
 */
function showFactory(ext, kind, build, describe) {
	const id = components.allocateId();
	const component = build(components.createTui(id), id);
	components.register(id, ext, kind, component);
	const [method, args] = describe(id);
	display(method, args);
	return id;
}

/** @param {number} ext */
export function createUIContext(ext) {
	if (!host.run.hasUI) return noUIContext();
	const ui = interactiveUIContext(ext);
	return host.run.mode === "rpc" ? rpcUIContext(ui) : ui;
}

/**
 * pi's rpc mode: what needs a terminal does nothing there. `custom` answers undefined without
 * calling the factory, component widgets, footers, headers and editors are ignored, and the
 * editor's text reads "" (the client owns the editor).
 * @param {any} ui
 */
function rpcUIContext(ui) {
	const nothing = () => {};
	return strictObject(
		Object.defineProperties(
			{
				...ui,
				custom: async () => undefined,
				setWidget(key, content, options) {
					if (typeof content !== "function") ui.setWidget(key, content, options);
				},
				setFooter: nothing,
				setHeader: nothing,
				setEditorComponent: nothing,
				getEditorComponent: () => undefined,
				getEditorText: () => "",
				onTerminalInput: () => nothing,
				addAutocompleteProvider: nothing,
			},
			{ theme: { get: () => currentTheme(), enumerable: true } },
		),
		"ctx.ui",
	);
}

/** @param {number} ext */
function interactiveUIContext(ext) {
	/** @type {Function | undefined} */
	let editorFactory;
	const ui = {
		select: (title, options, opts) => dialog("select", [title, options, dialogOptions(opts)], opts?.signal),
		confirm: (title, message, opts) => dialog("confirm", [title, message, dialogOptions(opts)], opts?.signal),
		input: (title, placeholder, opts) => dialog("input", [title, placeholder ?? null, dialogOptions(opts)], opts?.signal),
		editor: (title, prefill) => dialog("editor", [title, prefill ?? null]),
		notify: (message, type) => display("notify", [message, type ?? null]),
		setStatus(key, text) {
			// The footer data's getExtensionStatuses() sees the host's own statuses at once.
			if (text === undefined || text === null) delete host.state.extensionStatuses[key];
			else host.state.extensionStatuses[key] = String(text);
			display("setStatus", [key, text ?? null]);
		},
		setWorkingMessage: (message) => display("setWorkingMessage", [message ?? null]),
		setWorkingVisible: (visible) => display("setWorkingVisible", [Boolean(visible)]),
		setWorkingIndicator: (options) => display("setWorkingIndicator", [options ?? null]),
		setHiddenThinkingLabel: (label) => display("setHiddenThinkingLabel", [label ?? null]),
		setTitle: (title) => display("setTitle", [title]),
		pasteToEditor: (text) => display("pasteToEditor", [text]),
		setEditorText(text) {
			host.state.editorText = text ?? "";
			// undefined stays undefined (null): pi's rpc mode then sends no text.
			display("setEditorText", [text ?? null]);
		},
		getEditorText: () => host.state.editorText ?? "",
		getToolsExpanded: () => Boolean(host.state.toolsExpanded),
		setToolsExpanded(expanded) {
			host.state.toolsExpanded = Boolean(expanded);
			display("setToolsExpanded", [Boolean(expanded)]);
		},
		setWidget(key, content, options) {
			components.disposeWhere("widget", ext, key);
			// The placement as given (pi's rpc mode sends none when there is none).
			const placement = options?.placement === undefined ? {} : { placement: options.placement };
			if (typeof content === "function") {
				const id = showFactory(ext, "widget", (tui) => content(tui, currentTheme()), (cid) => ["setWidget", [key, { component: cid }, placement]]);
				components.setKey(id, key);
			} else display("setWidget", [key, content ?? null, placement]);
		},
		setFooter(factory) {
			components.disposeWhere("footer", ext);
			if (typeof factory === "function")
				showFactory(ext, "footer", (tui) => factory(tui, currentTheme(), footerData()), (id) => ["setFooter", [{ component: id }]]);
			else display("setFooter", [null]);
		},
		setHeader(factory) {
			components.disposeWhere("header", ext);
			if (typeof factory === "function")
				showFactory(ext, "header", (tui) => factory(tui, currentTheme()), (id) => ["setHeader", [{ component: id }]]);
			else display("setHeader", [null]);
		},
		custom: (factory, options) => custom(ext, factory, options),
		setEditorComponent(factory) {
			components.disposeWhere("editor", ext);
			if (typeof factory !== "function") {
				editorFactory = undefined;
				display("setEditorComponent", [null]);
				return;
			}
			editorFactory = factory;
			showFactory(
				ext,
				"editor",
				(tui, id) => wireEditor(factory(tui, editorTheme(), keybindings()), id),
				(id) => ["setEditorComponent", [{ component: id }]],
			);
		},
		getEditorComponent: () => editorFactory,
		get theme() {
			return currentTheme();
		},
		getAllThemes: () => (host.state.themes ?? []).map((t) => ({ name: t.name, path: t.path ?? undefined })),
		getTheme(name) {
			if (name === currentTheme().name) return currentTheme();
			if (!(host.state.themes ?? []).some((t) => t.name === name)) return undefined;
			throw unsupported(`ctx.ui.getTheme("${name}")`, "the host only has the colours of the current theme");
		},
		setTheme(theme) {
			if (theme instanceof Theme || typeof theme !== "string") throw unsupported("ctx.ui.setTheme(Theme object)", "pass a theme name");
			const known = (host.state.themes ?? []).some((t) => t.name === theme);
			if (!known) return { success: false, error: `Theme not found: ${theme}` };
			display("setTheme", [theme]);
			return { success: true };
		},
		onTerminalInput(handler) {
			const id = nextTerminalListener++;
			terminalListeners.set(id, handler);
			display("onTerminalInput", [id]);
			return () => {
				if (terminalListeners.delete(id)) display("offTerminalInput", [id]);
			};
		},
		addAutocompleteProvider() {
			throw unsupported("ctx.ui.addAutocompleteProvider");
		},
	};
	return strictObject(ui, "ctx.ui");
}

/**
 * `ctx.ui.custom(factory, options)`: builds the component, shows it through `ui custom`, and
 * resolves with what the component passes to `done` (or undefined when pi-rs closes it or
 * cannot show it).
 * @param {number} ext @param {Function} factory @param {any} [options]
 */
async function custom(ext, factory, options) {
	if (options?.onHandle) throw unsupported("ctx.ui.custom({onHandle})", "overlay handles are not available through pi-rs");
	const id = components.allocateId();
	let settle;
	const result = new Promise((resolve) => {
		settle = resolve;
	});
	let finished = false;
	const finish = (value, fromComponent) => {
		if (finished) return;
		finished = true;
		components.dispose(id);
		if (fromComponent) host.conn?.notify("component_done", { component: id, value: jsonSafe(value) });
		settle(value);
	};
	const done = (value) => finish(value, true);
	const component = await factory(components.createTui(id), currentTheme(), keybindings(), done);
	if (finished) return result; // done() during the factory
	components.register(id, ext, "custom", component, (value) => finish(value, false));
	let overlayOptions = options?.overlayOptions;
	if (typeof overlayOptions === "function") overlayOptions = overlayOptions();
	conn("ctx.ui.custom")
		.request("ui", { method: "custom", args: { component: id, overlay: Boolean(options?.overlay), overlayOptions: jsonSafe(overlayOptions) } })
		.then(
			() => finish(undefined, false),
			() => finish(undefined, false),
		);
	return result;
}

/** @param {unknown} value */
function jsonSafe(value) {
	if (value === undefined) return null;
	try {
		return JSON.parse(JSON.stringify(value));
	} catch {
		return null;
	}
}

/** pi's no-op UI (no UI in this mode): dialogs answer as dismissed, the rest does nothing. */
function noUIContext() {
	const nothing = () => {};
	return {
		select: async () => undefined,
		confirm: async () => false,
		input: async () => undefined,
		editor: async () => undefined,
		custom: async () => undefined,
		notify: nothing,
		onTerminalInput: () => nothing,
		setStatus: nothing,
		setWorkingMessage: nothing,
		setWorkingVisible: nothing,
		setWorkingIndicator: nothing,
		setHiddenThinkingLabel: nothing,
		setWidget: nothing,
		setFooter: nothing,
		setHeader: nothing,
		setTitle: nothing,
		pasteToEditor: nothing,
		setEditorText: nothing,
		getEditorText: () => "",
		addAutocompleteProvider: nothing,
		setEditorComponent: nothing,
		getEditorComponent: () => undefined,
		get theme() {
			return currentTheme();
		},
		getAllThemes: () => [],
		getTheme: () => undefined,
		setTheme: () => ({ success: false, error: "UI not available" }),
		getToolsExpanded: () => false,
		setToolsExpanded: nothing,
	};
}

