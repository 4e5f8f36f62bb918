// pi's message helpers for extensions: `convertToLlm` (session messages, including pi's own
// roles, to what a model sees) and `serializeConversation` (model messages as the plain
// text compaction prompts summarize), with pi 0.73.1's wording.

const COMPACTION_PREFIX = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
const COMPACTION_SUFFIX = "\n</summary>";
const BRANCH_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
const BRANCH_SUFFIX = "</summary>";
/** Tool results longer than this are cut in serialized conversations. */
const TOOL_RESULT_LIMIT = 2000;

/** A `!command` run as the user message text a model sees. @param {any} m */
function bashText(m) {
	const parts = [`Ran \`${m.command}\`\n`];
	parts.push(m.output ? `\`\`\`\n${m.output}\n\`\`\`` : "(no output)");
	if (m.cancelled) parts.push("\n\n(command cancelled)");
	else if (m.exitCode !== null && m.exitCode !== undefined && m.exitCode !== 0) parts.push(`\n\nCommand exited with code ${m.exitCode}`);
	if (m.truncated && m.fullOutputPath) parts.push(`\n\n[Output truncated. Full output: ${m.fullOutputPath}]`);
	return parts.join("");
}

/** @param {string} text @param {number} timestamp */
const userText = (text, timestamp) => ({ role: "user", content: [{ type: "text", text }], timestamp });

/** @param {any[]} messages */
export function convertToLlm(messages) {
	const out = [];
	for (const m of messages) {
		switch (m?.role) {
			case "user":
			case "assistant":
			case "toolResult":
				out.push(m);
				break;
			case "bashExecution":
				if (!m.excludeFromContext) out.push(userText(bashText(m), m.timestamp));
				break;
			case "custom":
				out.push({
					role: "user",
					content: typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content,
					timestamp: m.timestamp,
				});
				break;
			case "branchSummary":
				out.push(userText(BRANCH_PREFIX + m.summary + BRANCH_SUFFIX, m.timestamp));
				break;
			case "compactionSummary":
				out.push(userText(COMPACTION_PREFIX + m.summary + COMPACTION_SUFFIX, m.timestamp));
				break;
			default:
				break;
		}
	}
	return out;
}

/** @param {any[]} blocks */
const texts = (blocks) => blocks.filter((b) => b.type === "text").map((b) => b.text);

/** @param {any[]} messages */
export function serializeConversation(messages) {
	const parts = [];
	for (const msg of messages) {
		if (msg.role === "user") {
			const text = typeof msg.content === "string" ? msg.content : texts(msg.content).join("");
			if (text) parts.push(`[User]: ${text}`);
		} else if (msg.role === "assistant") {
			const said = [];
			const thought = [];
			const calls = [];
			for (const block of msg.content) {
				if (block.type === "text") said.push(block.text);
				else if (block.type === "thinking") thought.push(block.thinking);
				else if (block.type === "toolCall") {
					const args = Object.entries(block.arguments ?? {}).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
					calls.push(`${block.name}(${args.join(", ")})`);
				}
			}
			if (thought.length) parts.push(`[Assistant thinking]: ${thought.join("\n")}`);
			if (said.length) parts.push(`[Assistant]: ${said.join("\n")}`);
			if (calls.length) parts.push(`[Assistant tool calls]: ${calls.join("; ")}`);
		} else if (msg.role === "toolResult") {
			let text = texts(msg.content).join("");
			if (!text) continue;
			if (text.length > TOOL_RESULT_LIMIT)
				text = `${text.slice(0, TOOL_RESULT_LIMIT)}\n\n[... ${text.length - TOOL_RESULT_LIMIT} more characters truncated]`;
			parts.push(`[Tool result]: ${text}`);
		}
	}
	return parts.join("\n\n");
}
