// The keybindings the host's components see: pi-tui's own (`tui.*`, used by Editor,
// SelectList, ...) and pi's app actions (`app.*`, for `keybindings.matches(data, action)` in
// custom components and CustomEditor), with the user's `<agentDir>/keybindings.json` on top,
// as pi reads it. Installed into pi-tui's global (`setKeybindings`) at load.

import fs from "node:fs";
import path from "node:path";
import { KeybindingsManager, setKeybindings, TUI_KEYBINDINGS } from "@mariozechner/pi-tui";
import { log } from "./host.mjs";

/** pi 0.73.1's app actions and their default keys (pi's docs/keybindings.md). */
const APP = {
	"app.interrupt": "escape",
	"app.clear": "ctrl+c",
	"app.exit": "ctrl+d",
	"app.suspend": "ctrl+z",
	"app.editor.external": "ctrl+g",
	"app.clipboard.pasteImage": process.platform === "win32" ? "alt+v" : "ctrl+v",
	"app.session.togglePath": "ctrl+p",
	"app.session.toggleSort": "ctrl+s",
	"app.session.toggleNamedFilter": "ctrl+n",
	"app.session.rename": "ctrl+r",
	"app.session.delete": "ctrl+d",
	"app.session.deleteNoninvasive": "ctrl+backspace",
	"app.model.select": "ctrl+l",
	"app.model.cycleForward": "ctrl+p",
	"app.model.cycleBackward": "shift+ctrl+p",
	"app.thinking.cycle": "shift+tab",
	"app.thinking.toggle": "ctrl+t",
	"app.tools.expand": "ctrl+o",
	"app.message.followUp": "alt+enter",
	"app.message.dequeue": "alt+up",
	"app.tree.foldOrUp": ["ctrl+left", "alt+left"],
	"app.tree.unfoldOrDown": ["ctrl+right", "alt+right"],
	"app.tree.editLabel": "shift+l",
	"app.tree.toggleLabelTimestamp": "shift+t",
	"app.tree.filter.default": "ctrl+d",
	"app.tree.filter.noTools": "ctrl+t",
	"app.tree.filter.userOnly": "ctrl+u",
	"app.tree.filter.labeledOnly": "ctrl+l",
	"app.tree.filter.all": "ctrl+a",
	"app.tree.filter.cycleForward": "ctrl+o",
	"app.tree.filter.cycleBackward": "shift+ctrl+o",
	"app.models.save": "ctrl+s",
	"app.models.enableAll": "ctrl+a",
	"app.models.clearAll": "ctrl+x",
	"app.models.toggleProvider": "ctrl+p",
	"app.models.reorderUp": "alt+up",
	"app.models.reorderDown": "alt+down",
};

let manager = new KeybindingsManager(definitions());

function definitions() {
	const defs = { ...TUI_KEYBINDINGS };
	for (const [id, keys] of Object.entries(APP)) defs[id] = { defaultKeys: keys };
	return defs;
}

/** Reads `<agentDir>/keybindings.json` (if any) and installs the bindings. @param {string} agentDir */
export function installKeybindings(agentDir) {
	let user = {};
	const file = agentDir ? path.join(agentDir, "keybindings.json") : "";
	if (file && fs.existsSync(file)) {
		try {
			user = JSON.parse(fs.readFileSync(file, "utf8")) ?? {};
		} catch (err) {
			log("warn", `cannot read ${file}: ${err instanceof Error ? err.message : err}`);
		}
	}
	manager = new KeybindingsManager(definitions(), user);
	setKeybindings(manager);
	return manager;
}

/** The keybindings manager handed to component factories. */
export function keybindings() {
	return manager;
}
