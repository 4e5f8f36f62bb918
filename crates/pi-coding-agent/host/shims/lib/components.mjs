// pi's UI building blocks that extensions import from pi-coding-agent, written over pi-tui:
// `DynamicBorder` (a full-width rule), `BorderedLoader` (a spinner between rules, Esc
// cancels), `CustomEditor` (pi-tui's Editor plus pi's app keybindings) and the key hints.

import { CancellableLoader, Container, Editor, getKeybindings, Loader, Spacer, Text } from "@mariozechner/pi-tui";
import { currentTheme } from "../../lib/theme.mjs";

/** The keys bound to an action, as pi shows them (`esc/ctrl+c`). @param {string} action */
export function keyText(action) {
	return getKeybindings().getKeys(action).join("/");
}

/** @param {string} action @param {string} description */
export function keyHint(action, description) {
	return currentTheme().fg("dim", keyText(action)) + currentTheme().fg("muted", ` ${description}`);
}

/** @param {string} key @param {string} description */
export function rawKeyHint(key, description) {
	return currentTheme().fg("dim", key) + currentTheme().fg("muted", ` ${description}`);
}

/** A rule as wide as the view, in `color` (default: the theme's border colour). */
export class DynamicBorder {
	/** @param {(s: string) => string} [color] */
	constructor(color = (s) => currentTheme().fg("border", s)) {
		this.color = color;
	}
	invalidate() {}
	/** @param {number} width */
	render(width) {
		return [this.color("─".repeat(Math.max(1, width)))];
	}
}

/** A loader between two borders; Esc (tui.select.cancel) aborts `signal` and calls `onAbort`. */
export class BorderedLoader extends Container {
	/** @param {any} tui @param {any} theme @param {string} message @param {{cancellable?: boolean}} [options] */
	constructor(tui, theme, message, options) {
		super();
		this.cancellable = options?.cancellable ?? true;
		const border = (s) => theme.fg("border", s);
		const spinner = (s) => theme.fg("accent", s);
		const text = (s) => theme.fg("muted", s);
		this.addChild(new DynamicBorder(border));
		if (this.cancellable) {
			this.loader = new CancellableLoader(tui, spinner, text, message);
		} else {
			this.controller = new AbortController();
			this.loader = new Loader(tui, spinner, text, message);
		}
		this.addChild(this.loader);
		if (this.cancellable) {
			this.addChild(new Spacer(1));
			this.addChild(new Text(keyHint("tui.select.cancel", "cancel"), 1, 0));
		}
		this.addChild(new Spacer(1));
		this.addChild(new DynamicBorder(border));
	}
	get signal() {
		return this.cancellable ? this.loader.signal : this.controller.signal;
	}
	set onAbort(fn) {
		if (this.cancellable) this.loader.onAbort = fn;
	}
	/** @param {string} data */
	handleInput(data) {
		if (this.cancellable) this.loader.handleInput(data);
	}
	dispose() {
		if (typeof this.loader.dispose === "function") this.loader.dispose();
		else this.loader.stop?.();
	}
}

/** pi-tui's Editor with pi's app keybindings: app.interrupt, app.exit and registered actions. */
export class CustomEditor extends Editor {
	/** @param {any} tui @param {any} theme @param {any} keybindings @param {any} [options] */
	constructor(tui, theme, keybindings, options) {
		super(tui, theme, options);
		this.keybindings = keybindings;
		/** @type {Map<string, () => void>} */
		this.actionHandlers = new Map();
		this.onEscape = undefined;
		this.onCtrlD = undefined;
		this.onPasteImage = undefined;
		this.onExtensionShortcut = undefined;
	}
	/** @param {string} action @param {() => void} handler */
	onAction(action, handler) {
		this.actionHandlers.set(action, handler);
	}
	/** @param {string} data */
	handleInput(data) {
		if (this.onExtensionShortcut?.(data)) return;
		const kb = this.keybindings;
		if (kb.matches(data, "app.clipboard.pasteImage")) {
			this.onPasteImage?.();
			return;
		}
		if (kb.matches(data, "app.interrupt")) {
			const handler = this.isShowingAutocomplete() ? undefined : (this.onEscape ?? this.actionHandlers.get("app.interrupt"));
			if (handler) handler();
			else super.handleInput(data);
			return;
		}
		if (kb.matches(data, "app.exit") && this.getText().length === 0) {
			(this.onCtrlD ?? this.actionHandlers.get("app.exit"))?.();
			return;
		}
		for (const [action, handler] of this.actionHandlers) {
			if (action !== "app.interrupt" && action !== "app.exit" && kb.matches(data, action)) {
				handler();
				return;
			}
		}
		super.handleInput(data);
	}
}
