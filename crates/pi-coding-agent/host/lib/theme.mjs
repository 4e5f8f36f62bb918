// pi's Theme API (`fg`, `bg`, `bold`, ...) over the `theme` state pi-rs sends:
// `{name, mode: "truecolor" | "256color" | "none", colors: {token: "#rrggbb" | 0..255 | ""}}`.
// Until pi-rs sends one, the built-in dark palette in truecolor. `currentTheme()` is what
// render hooks, `ctx.ui.theme` and pi's theme helpers (getMarkdownTheme, ...) use.

import { host, onState } from "./host.mjs";

/** pi's background tokens; every other token is a foreground colour. */
const BG_TOKENS = new Set(["selectedBg", "userMessageBg", "customMessageBg", "toolPendingBg", "toolSuccessBg", "toolErrorBg"]);

/** The built-in dark palette (pi-rs's pi_tui::theme dark values). */
const DARK = {
	accent: "#8abeb7", border: "#5f87ff", borderAccent: "#00d7ff", borderMuted: "#505050", success: "#b5bd68",
	error: "#cc6666", warning: "#ffff00", muted: "#808080", dim: "#666666", text: "", thinkingText: "#808080",
	selectedBg: "#3a3a4a", userMessageBg: "#343541", userMessageText: "", customMessageBg: "#2d2838",
	customMessageText: "", customMessageLabel: "#9575cd", toolPendingBg: "#282832", toolSuccessBg: "#283228",
	toolErrorBg: "#3c2828", toolTitle: "", toolOutput: "#808080", mdHeading: "#f0c674", mdLink: "#81a2be",
	mdLinkUrl: "#666666", mdCode: "#8abeb7", mdCodeBlock: "#b5bd68", mdCodeBlockBorder: "#808080", mdQuote: "#808080",
	mdQuoteBorder: "#808080", mdHr: "#808080", mdListBullet: "#8abeb7", toolDiffAdded: "#b5bd68",
	toolDiffRemoved: "#cc6666", toolDiffContext: "#808080", syntaxComment: "#6A9955", syntaxKeyword: "#569CD6",
	syntaxFunction: "#DCDCAA", syntaxVariable: "#9CDCFE", syntaxString: "#CE9178", syntaxNumber: "#B5CEA8",
	syntaxType: "#4EC9B0", syntaxOperator: "#D4D4D4", syntaxPunctuation: "#D4D4D4", thinkingOff: "#505050",
	thinkingMinimal: "#6e6e6e", thinkingLow: "#5f87af", thinkingMedium: "#81a2be", thinkingHigh: "#b294bb",
	thinkingXhigh: "#d183e8", bashMode: "#b5bd68",
};

/** @param {string} hex */
function rgb(hex) {
	const n = Number.parseInt(hex.slice(1), 16);
	return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

const CUBE = [0, 95, 135, 175, 215, 255];
/** @param {number} v */
const nearestCube = (v) => CUBE.reduce((best, c, i) => (Math.abs(c - v) < Math.abs(CUBE[best] - v) ? i : best), 0);
/** @param {number[]} a @param {number[]} b */
const distance = (a, b) => 0.299 * (a[0] - b[0]) ** 2 + 0.587 * (a[1] - b[1]) ** 2 + 0.114 * (a[2] - b[2]) ** 2;

/** The xterm-256 index nearest to an RGB colour (cube, or the grey ramp for near-neutral colours). @param {number[]} c */
export function rgbTo256(c) {
	const idx = c.map(nearestCube);
	const cube = idx.map((i) => CUBE[i]);
	const cubeIndex = 16 + 36 * idx[0] + 6 * idx[1] + idx[2];
	const grey = Math.round(0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]);
	let greyStep = 0;
	for (let i = 1; i < 24; i++) if (Math.abs(8 + 10 * i - grey) < Math.abs(8 + 10 * greyStep - grey)) greyStep = i;
	const greyValue = 8 + 10 * greyStep;
	const spread = Math.max(...c) - Math.min(...c);
	if (spread < 10 && distance(c, [greyValue, greyValue, greyValue]) < distance(c, cube)) return 232 + greyStep;
	return cubeIndex;
}

/** The SGR sequence of a colour value. @param {string|number} value @param {number} base 38 or 48 @param {string} mode */
function sgr(value, base, mode) {
	if (value === "" || value === null || value === undefined) return `\x1b[${base + 1}m`;
	if (typeof value === "number") return `\x1b[${base};5;${value}m`;
	if (typeof value === "string" && value.startsWith("#")) {
		const c = rgb(value);
		return mode === "truecolor" ? `\x1b[${base};2;${c[0]};${c[1]};${c[2]}m` : `\x1b[${base};5;${rgbTo256(c)}m`;
	}
	throw new Error(`Invalid color value: ${value}`);
}

/** pi's Theme, built from a `theme` state value. */
export class Theme {
	/** @param {{name?: string, mode?: string, colors?: Record<string, string|number>}} [spec] */
	constructor(spec = {}) {
		this.name = spec.name ?? "dark";
		this.mode = spec.mode ?? "truecolor";
		this.sourcePath = undefined;
		const colors = { ...DARK, ...(spec.colors ?? {}) };
		const plain = this.mode === "none";
		/** @type {Map<string, string>} */
		this.fgColors = new Map();
		/** @type {Map<string, string>} */
		this.bgColors = new Map();
		for (const [token, value] of Object.entries(colors)) {
			if (BG_TOKENS.has(token)) this.bgColors.set(token, plain ? "" : sgr(value, 48, this.mode));
			else this.fgColors.set(token, plain ? "" : sgr(value, 38, this.mode));
		}
	}
	/** @param {string} color @param {string} text */
	fg(color, text) {
		const code = this.fgColors.get(color);
		if (code === undefined) throw new Error(`Unknown theme color: ${color}`);
		return code ? `${code}${text}\x1b[39m` : String(text);
	}
	/** @param {string} color @param {string} text */
	bg(color, text) {
		const code = this.bgColors.get(color);
		if (code === undefined) throw new Error(`Unknown theme background color: ${color}`);
		return code ? `${code}${text}\x1b[49m` : String(text);
	}
	/**
	 * pi's text styles come from chalk, which styles only for a terminal: in the interactive
	 * mode, not where pi's stdout is a pipe (rpc, json, print).
	 * @param {string} open @param {string} close @param {string} text
	 */
	style(open, close, text) {
		const styled = this.mode !== "none" && host.run.mode === "interactive";
		return styled ? `\x1b[${open}m${text}\x1b[${close}m` : String(text);
	}
	/** @param {string} text */
	bold(text) {
		return this.style("1", "22", text);
	}
	/** @param {string} text */
	italic(text) {
		return this.style("3", "23", text);
	}
	/** @param {string} text */
	underline(text) {
		return this.style("4", "24", text);
	}
	/** @param {string} text */
	inverse(text) {
		return this.style("7", "27", text);
	}
	/** @param {string} text */
	strikethrough(text) {
		return this.style("9", "29", text);
	}
	/** @param {string} color */
	getFgAnsi(color) {
		const code = this.fgColors.get(color);
		if (code === undefined) throw new Error(`Unknown theme color: ${color}`);
		return code;
	}
	/** @param {string} color */
	getBgAnsi(color) {
		const code = this.bgColors.get(color);
		if (code === undefined) throw new Error(`Unknown theme background color: ${color}`);
		return code;
	}
	getColorMode() {
		return this.mode === "none" ? "256color" : this.mode;
	}
	/** @param {string} level */
	getThinkingBorderColor(level) {
		const token = {
			off: "thinkingOff", minimal: "thinkingMinimal", low: "thinkingLow", medium: "thinkingMedium",
			high: "thinkingHigh", xhigh: "thinkingXhigh",
		}[level] ?? "thinkingOff";
		return (/** @type {string} */ s) => this.fg(token, s);
	}
	getBashModeBorderColor() {
		return (/** @type {string} */ s) => this.fg("bashMode", s);
	}
}

let current = new Theme();
onState("theme", (spec) => {
	current = new Theme(spec ?? {});
});

/** The theme pi-rs uses now. */
export function currentTheme() {
	return current;
}

/** pi's theme helpers (`getMarkdownTheme`, ...), over the current theme. */
export function markdownTheme() {
	const t = () => current;
	return {
		heading: (s) => t().fg("mdHeading", s),
		link: (s) => t().fg("mdLink", s),
		linkUrl: (s) => t().fg("mdLinkUrl", s),
		code: (s) => t().fg("mdCode", s),
		codeBlock: (s) => t().fg("mdCodeBlock", s),
		codeBlockBorder: (s) => t().fg("mdCodeBlockBorder", s),
		quote: (s) => t().fg("mdQuote", s),
		quoteBorder: (s) => t().fg("mdQuoteBorder", s),
		hr: (s) => t().fg("mdHr", s),
		listBullet: (s) => t().fg("mdListBullet", s),
		bold: (s) => t().bold(s),
		italic: (s) => t().italic(s),
		underline: (s) => t().underline(s),
		strikethrough: (s) => t().strikethrough(s),
		// No syntax highlighter in the host: code blocks get the code-block colour per line.
		highlightCode: (code) => String(code).split("\n").map((line) => t().fg("mdCodeBlock", line)),
	};
}

export function selectListTheme() {
	return {
		selectedPrefix: (s) => current.fg("accent", s),
		selectedText: (s) => current.fg("accent", s),
		description: (s) => current.fg("muted", s),
		scrollInfo: (s) => current.fg("muted", s),
		noMatch: (s) => current.fg("muted", s),
	};
}

export function editorTheme() {
	return { borderColor: (s) => current.fg("borderMuted", s), selectList: selectListTheme() };
}

export function settingsListTheme() {
	return {
		label: (s, selected) => (selected ? current.fg("accent", s) : s),
		value: (s, selected) => (selected ? current.fg("accent", s) : current.fg("muted", s)),
		description: (s) => current.fg("dim", s),
		cursor: current.fg("accent", "→ "),
		hint: (s) => current.fg("dim", s),
	};
}

