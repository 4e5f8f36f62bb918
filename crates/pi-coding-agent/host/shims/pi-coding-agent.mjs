// What extensions get for `import ... from "@mariozechner/pi-coding-agent"`: the parts of
// pi's package API that make sense inside an extension, written for the host (tool helpers,
// message and text utilities, UI building blocks over pi-tui, built-in tool factories that
// run pi-rs's tools). The loader adds `VERSION` (pi-rs's, from `load`) and makes any other
// name fail with `pi-rs extension host: @mariozechner/pi-coding-agent has no export "X"`.

import os from "node:os";
import path from "node:path";
import { host } from "../lib/host.mjs";
import { markdownTheme, selectListTheme, settingsListTheme, Theme } from "../lib/theme.mjs";
import { createTool, createToolDefinition } from "./lib/builtin-tools.mjs";

export { BorderedLoader, CustomEditor, DynamicBorder, keyHint, keyText, rawKeyHint } from "./lib/components.mjs";
export { parseFrontmatter, stripFrontmatter, withFileMutationQueue } from "./lib/files.mjs";
export { convertToLlm, serializeConversation } from "./lib/messages.mjs";
export { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHead, truncateLine, truncateTail } from "./lib/truncate.mjs";
export { Theme };

/** pi's `defineTool`: the tool itself (it only helps TypeScript's inference). @template T @param {T} tool */
export const defineTool = (tool) => tool;

/** @param {string} toolName @param {any} event */
export const isToolCallEventType = (toolName, event) => event?.toolName === toolName;
/** @param {string} name */
const isResultOf = (name) => (/** @type {any} */ event) => event?.toolName === name;
export const isBashToolResult = isResultOf("bash");
export const isReadToolResult = isResultOf("read");
export const isEditToolResult = isResultOf("edit");
export const isWriteToolResult = isResultOf("write");
export const isGrepToolResult = isResultOf("grep");
export const isFindToolResult = isResultOf("find");
export const isLsToolResult = isResultOf("ls");

/** pi's agent directory: the one pi-rs runs with. */
export function getAgentDir() {
	if (host.run.agentDir) return host.run.agentDir;
	const env = process.env.PI_CODING_AGENT_DIR;
	if (env) return env.startsWith("~") ? path.join(os.homedir(), env.slice(1)) : env;
	return path.join(os.homedir(), ".pi", "agent");
}

export const getMarkdownTheme = () => markdownTheme();
export const getSelectListTheme = () => selectListTheme();
export const getSettingsListTheme = () => settingsListTheme();

/** pi's `createEventBus()`: a bus of its own (not `pi.events`). */
export function createEventBus() {
	const listeners = new Map();
	return {
		emit(channel, data) {
			for (const listener of [...(listeners.get(channel) ?? [])]) listener(data);
		},
		on(channel, handler) {
			const safe = async (data) => {
				try {
					await handler(data);
				} catch (err) {
					console.error(`Event handler error (${channel}):`, err);
				}
			};
			if (!listeners.has(channel)) listeners.set(channel, new Set());
			listeners.get(channel).add(safe);
			return () => listeners.get(channel)?.delete(safe);
		},
		clear: () => listeners.clear(),
	};
}

export const createReadTool = (cwd, options) => createTool("read", cwd, options);
export const createBashTool = (cwd, options) => createTool("bash", cwd, options);
export const createEditTool = (cwd, options) => createTool("edit", cwd, options);
export const createWriteTool = (cwd, options) => createTool("write", cwd, options);
export const createGrepTool = (cwd, options) => createTool("grep", cwd, options);
export const createFindTool = (cwd, options) => createTool("find", cwd, options);
export const createLsTool = (cwd, options) => createTool("ls", cwd, options);
export const createReadToolDefinition = (cwd, options) => createToolDefinition("read", cwd, options);
export const createBashToolDefinition = (cwd, options) => createToolDefinition("bash", cwd, options);
export const createEditToolDefinition = (cwd, options) => createToolDefinition("edit", cwd, options);
export const createWriteToolDefinition = (cwd, options) => createToolDefinition("write", cwd, options);
export const createGrepToolDefinition = (cwd, options) => createToolDefinition("grep", cwd, options);
export const createFindToolDefinition = (cwd, options) => createToolDefinition("find", cwd, options);
export const createLsToolDefinition = (cwd, options) => createToolDefinition("ls", cwd, options);
/** read, bash, edit, write. */
export const createCodingTools = (cwd, options) => ["read", "bash", "edit", "write"].map((n) => createTool(n, cwd, options?.[n]));
/** read, grep, find, ls. */
export const createReadOnlyTools = (cwd, options) => ["read", "grep", "find", "ls"].map((n) => createTool(n, cwd, options?.[n]));
