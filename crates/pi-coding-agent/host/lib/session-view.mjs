// The host's mirror of pi-rs's session (`session_reset`, `session_append`, `session_leaf`)
// and pi's ReadonlySessionManager over it (`ctx.sessionManager`): entries in file order, the
// tree by `parentId`, labels from `label` entries, the name from the last `session_info`.

import path from "node:path";
import { strictObject } from "./strict.mjs";

export class SessionView {
	constructor() {
		/** @type {any} */
		this.header = null;
		/** @type {any[]} */
		this.entries = [];
		/** @type {Map<string, any>} */
		this.byId = new Map();
		/** @type {string | null} */
		this.leafId = null;
		/** @type {string | undefined} */
		this.file = undefined;
		/** @type {string | undefined} */
		this.dir = undefined;
		/** @type {Map<string, {label: string, timestamp: string}>} */
		this.labels = new Map();
		/** Fallback working directory (the run's). */
		this.cwd = process.cwd();
	}

	/** `session_reset`. @param {{header?: any, entries?: any[], leafId?: string|null, file?: string|null, dir?: string|null}} params */
	reset(params) {
		this.header = params.header ?? null;
		this.entries = [];
		this.byId.clear();
		this.labels.clear();
		this.file = params.file ?? undefined;
		this.dir = params.dir ?? undefined;
		this.add(params.entries ?? []);
		this.leafId = params.leafId ?? (this.entries.length ? this.entries[this.entries.length - 1].id : null);
	}

	/** `session_append`. @param {{entries?: any[], leafId?: string|null}} params */
	append(params) {
		this.add(params.entries ?? []);
		if (params.leafId !== undefined) this.leafId = params.leafId;
		else if (params.entries?.length) this.leafId = params.entries[params.entries.length - 1].id;
	}

	/** `session_leaf`. @param {{leafId: string|null}} params */
	setLeaf(params) {
		this.leafId = params.leafId ?? null;
	}

	/** @param {any[]} entries */
	add(entries) {
		for (const entry of entries) {
			if (!entry || typeof entry !== "object") continue;
			if (entry.type === "session") {
				this.header = entry;
				continue;
			}
			this.entries.push(entry);
			if (entry.id !== undefined) this.byId.set(entry.id, entry);
			if (entry.type === "label" && entry.targetId !== undefined) {
				if (entry.label) this.labels.set(entry.targetId, { label: entry.label, timestamp: entry.timestamp });
				else this.labels.delete(entry.targetId);
			}
		}
	}

	// --- pi's ReadonlySessionManager ---------------------------------------------------

	getCwd() {
		return this.header?.cwd ?? this.cwd;
	}
	getSessionDir() {
		return this.dir ?? (this.file ? path.dirname(this.file) : "");
	}
	getSessionId() {
		return this.header?.id ?? "";
	}
	getSessionFile() {
		return this.file;
	}
	getLeafId() {
		return this.leafId;
	}
	getLeafEntry() {
		return this.leafId ? this.byId.get(this.leafId) : undefined;
	}
	/** @param {string} id */
	getEntry(id) {
		return this.byId.get(id);
	}
	/** @param {string} id */
	getLabel(id) {
		return this.labels.get(id)?.label;
	}
	/** The path from the root to `fromId` (default: the leaf). @param {string} [fromId] */
	getBranch(fromId) {
		const branch = [];
		const start = fromId ?? this.leafId;
		let current = start ? this.byId.get(start) : undefined;
		const seen = new Set();
		while (current && !seen.has(current.id)) {
			seen.add(current.id);
			branch.push(current);
			current = current.parentId ? this.byId.get(current.parentId) : undefined;
		}
		return branch.reverse();
	}
	getHeader() {
		return this.header;
	}
	getEntries() {
		return this.entries.slice();
	}
	getSessionName() {
		for (let i = this.entries.length - 1; i >= 0; i--) {
			const entry = this.entries[i];
			if (entry.type === "session_info") return entry.name?.trim() || undefined;
		}
		return undefined;
	}
	/** Roots with children sorted by timestamp, labels resolved; orphans are roots. */
	getTree() {
		const nodes = new Map();
		for (const entry of this.entries) {
			const label = this.labels.get(entry.id);
			nodes.set(entry.id, { entry, children: [], label: label?.label, labelTimestamp: label?.timestamp });
		}
		const roots = [];
		for (const entry of this.entries) {
			const node = nodes.get(entry.id);
			const parent = entry.parentId === null || entry.parentId === entry.id ? undefined : nodes.get(entry.parentId);
			if (parent) parent.children.push(node);
			else roots.push(node);
		}
		const time = (node) => new Date(node.entry.timestamp).getTime();
		const stack = [...roots];
		while (stack.length) {
			const node = stack.pop();
			node.children.sort((a, b) => time(a) - time(b));
			stack.push(...node.children);
		}
		return roots;
	}

	/** The read-only view handed to extensions (only pi's ReadonlySessionManager methods). */
	readonly() {
		const names = [
			"getCwd", "getSessionDir", "getSessionId", "getSessionFile", "getLeafId", "getLeafEntry", "getEntry",
			"getLabel", "getBranch", "getHeader", "getEntries", "getTree", "getSessionName",
		];
		const view = {};
		for (const name of names) view[name] = this[name].bind(this);
		return strictObject(Object.freeze(view), "ctx.sessionManager", "extensions get pi's ReadonlySessionManager");
	}
}
