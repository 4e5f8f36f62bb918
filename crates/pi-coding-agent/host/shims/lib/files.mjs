// pi's file helpers for extensions: `withFileMutationQueue` (one mutation at a time per real
// file path, shared by every extension of the host) and `parseFrontmatter` /
// `stripFrontmatter` (a leading `---` YAML block).

import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { parse } from "yaml";

/** @type {Map<string, Promise<void>>} */
const queues = new Map();

/** @param {string} filePath */
function queueKey(filePath) {
	const absolute = resolve(filePath);
	try {
		return realpathSync.native(absolute);
	} catch {
		return absolute;
	}
}

/** Runs `fn` after every earlier mutation of the same file finished. @template T @param {string} filePath @param {() => Promise<T>} fn @returns {Promise<T>} */
export async function withFileMutationQueue(filePath, fn) {
	const key = queueKey(filePath);
	const before = queues.get(key) ?? Promise.resolve();
	let release;
	const mine = new Promise((r) => {
		release = r;
	});
	const tail = before.then(() => mine);
	queues.set(key, tail);
	await before;
	try {
		return await fn();
	} finally {
		release();
		if (queues.get(key) === tail) queues.delete(key);
	}
}

/** @param {string} content */
export function parseFrontmatter(content) {
	const text = content.replace(/\r\n/g, "\n").replace(/\r/g, "\n");
	if (!text.startsWith("---")) return { frontmatter: {}, body: text };
	const end = text.indexOf("\n---", 3);
	if (end === -1) return { frontmatter: {}, body: text };
	const yaml = text.slice(4, end);
	const body = text.slice(end + 4).trim();
	if (!yaml) return { frontmatter: {}, body };
	return { frontmatter: parse(yaml) ?? {}, body };
}

/** @param {string} content */
export function stripFrontmatter(content) {
	return parseFrontmatter(content).body;
}
