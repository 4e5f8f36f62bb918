// pi's ExtensionContext (`ctx` of handlers, tools, shortcuts) and ExtensionCommandContext
// (commands, and the fresh ctx of `withSession`). Reads come from the mirrored state; actions
// are `context` requests. Each pi-rs request gets its own ctx whose `signal` is that
// request's AbortSignal (aborted by `cancel`).

import { conn, fireAndForget, host } from "./host.mjs";
import { strictObject, unsupported } from "./strict.mjs";
import { createUIContext } from "./ui-context.mjs";

/** @type {Map<number, any>} */
const uiByExt = new Map();
/** @param {number} ext */
function uiFor(ext) {
	let ui = uiByExt.get(ext);
	if (!ui) uiByExt.set(ext, (ui = createUIContext(ext)));
	return ui;
}

/** A `context` request. @param {string} method @param {object} [args] */
function context(method, args = {}) {
	return conn(`ctx.${method}`).request("context", { method, args });
}

/** `ctx.modelRegistry` over the mirrored `models`. */
export const modelRegistry = strictObject(
	{
		getAll: () => host.state.models?.all ?? [],
		getAvailable: () => host.state.models?.available ?? [],
		/** @param {string} provider @param {string} id */
		find: (provider, id) => (host.state.models?.all ?? []).find((m) => m.provider === provider && m.id === id),
		/** @param {any} model */
		hasConfiguredAuth: (model) =>
			(host.state.models?.available ?? []).some((m) => m.provider === model?.provider && m.id === model?.id),
		/** @param {any} model */
		async getApiKeyAndHeaders(model) {
			const auth = await conn("modelRegistry.getApiKeyAndHeaders").request("model_auth", { provider: model.provider, id: model.id });
			return {
				ok: Boolean(auth?.ok),
				apiKey: auth?.apiKey ?? undefined,
				headers: auth?.headers ?? undefined,
				error: auth?.error ?? undefined,
			};
		},
		/** @param {string} provider */
		async getApiKeyForProvider(provider) {
			const key = await conn("modelRegistry.getApiKeyForProvider").request("api_key", { provider });
			return key ?? undefined;
		},
		getError: () => undefined,
	},
	"ctx.modelRegistry",
	"the host mirrors pi-rs's models; use pi.registerProvider to change them",
);

/** The base context of extension `ext` (shared by its requests). @param {number} ext */
function baseContext(ext) {
	return {
		get ui() {
			return uiFor(ext);
		},
		get hasUI() {
			return host.run.hasUI;
		},
		get cwd() {
			return host.run.cwd;
		},
		get sessionManager() {
			return sessionManagerView();
		},
		get modelRegistry() {
			return modelRegistry;
		},
		get model() {
			return host.state.model ?? undefined;
		},
		isIdle: () => Boolean(host.state.idle),
		abort: () => fireAndForget("context", { method: "abort", args: {} }),
		hasPendingMessages: () => Boolean(host.state.pendingMessages),
		shutdown: () => fireAndForget("context", { method: "shutdown", args: {} }),
		getContextUsage: () => host.state.contextUsage ?? undefined,
		/** @param {{customInstructions?: string, onComplete?: Function, onError?: Function}} [options] */
		compact(options) {
			context("compact", { customInstructions: options?.customInstructions ?? null }).then(
				(result) => options?.onComplete?.(result),
				(err) => options?.onError?.(err instanceof Error ? err : new Error(String(err))),
			);
		},
		getSystemPrompt: () => host.state.systemPrompt ?? "",
	};
}

let sessionView;
function sessionManagerView() {
	sessionView ??= host.session.readonly();
	return sessionView;
}

/** @type {Map<number, object>} */
const bases = new Map();
/** @type {Map<number, object>} */
const commandBases = new Map();

/** The ctx of one request. @param {number} ext @param {AbortSignal} [signal] */
export function createContext(ext, signal) {
	let base = bases.get(ext);
	if (!base) bases.set(ext, (base = baseContext(ext)));
	return withSignal(base, signal);
}

/** The command ctx of one request. @param {number} ext @param {AbortSignal} [signal] */
export function createCommandContext(ext, signal) {
	let base = commandBases.get(ext);
	if (!base)
		commandBases.set(ext, (base = Object.defineProperties(descriptorsOf(baseContext(ext)), Object.getOwnPropertyDescriptors(commandActions(ext)))));
	return withSignal(base, signal);
}

/** @param {object} base @param {AbortSignal} [signal] */
function withSignal(base, signal) {
	return Object.create(base, {
		signal: {
			get: () => (host.state.idle ? undefined : signal),
			enumerable: true,
		},
	});
}

/** An object with `source`'s getters kept as getters. @param {object} source */
function descriptorsOf(source) {
	return Object.defineProperties({}, Object.getOwnPropertyDescriptors(source));
}

/** The session-control actions of command contexts. @param {number} ext */
function commandActions(ext) {
	return {
		waitForIdle: async () => {
			await context("waitForIdle");
		},
		/** @param {{parentSession?: string, setup?: Function, withSession?: Function}} [options] */
		async newSession(options) {
			const result = await context("newSession", { parentSession: options?.parentSession ?? null });
			return afterSwitch(ext, result, options, true);
		},
		/** @param {string} entryId @param {{position?: string, withSession?: Function}} [options] */
		async fork(entryId, options) {
			const result = await context("fork", { entryId, position: options?.position ?? "before" });
			return afterSwitch(ext, result, options, false);
		},
		/** @param {string} targetId @param {any} [options] */
		async navigateTree(targetId, options) {
			const result = await context("navigateTree", { targetId, ...(options ?? {}) });
			return { cancelled: Boolean(result?.cancelled) };
		},
		/** @param {string} sessionPath @param {{withSession?: Function}} [options] */
		async switchSession(sessionPath, options) {
			const result = await context("switchSession", { sessionPath });
			return afterSwitch(ext, result, options, false);
		},
		reload: async () => {
			await context("reload");
		},
	};
}

/**
 * After pi-rs switched sessions (and sent `session_reset`): runs `setup` then `withSession`
 * in the host, the latter with a fresh command ctx whose sendMessage/sendUserMessage return
 * promises (pi's ReplacedSessionContext).
 * @param {number} ext @param {any} result @param {any} options @param {boolean} allowSetup
 */
async function afterSwitch(ext, result, options, allowSetup) {
	const cancelled = Boolean(result?.cancelled);
	if (cancelled) return { cancelled };
	if (allowSetup && typeof options?.setup === "function") await options.setup(setupSessionManager(ext));
	if (typeof options?.withSession === "function") await options.withSession(replacedContext(ext));
	return { cancelled };
}

/** @param {number} ext */
function replacedContext(ext) {
	const ctx = createCommandContext(ext, undefined);
	return Object.create(ctx, {
		sendMessage: {
			value: (message, opts) =>
				conn("sendMessage").request("send_message", {
					ext,
					message: {
						customType: message.customType,
						content: message.content,
						display: message.display ?? true,
						details: message.details ?? null,
					},
					options: opts ?? {},
				}).then(() => undefined),
		},
		sendUserMessage: {
			value: (content, opts) =>
				conn("sendUserMessage").request("send_user_message", { ext, content, options: opts ?? {} }).then(() => undefined),
		},
	});
}

/**
 * The SessionManager `newSession({setup})` gets: the read-only view plus the writes the
 * protocol carries (custom entries, the name, labels); other writes throw.
 * @param {number} ext
 */
function setupSessionManager(ext) {
	const view = host.session;
	const writer = {
		...Object.fromEntries(
			["getCwd", "getSessionDir", "getSessionId", "getSessionFile", "getLeafId", "getLeafEntry", "getEntry", "getLabel",
				"getBranch", "getHeader", "getEntries", "getTree", "getSessionName"].map((n) => [n, view[n].bind(view)]),
		),
		appendCustomEntry: (customType, data) =>
			conn("setup").request("append_entry", { ext, customType, data: data === undefined ? null : data }),
		appendSessionInfo: (name) => conn("setup").request("set_session_name", { name }),
		appendLabelChange: (entryId, label) => conn("setup").request("set_label", { entryId, label: label || null }),
		appendMessage() {
			throw unsupported("SessionManager.appendMessage in newSession({setup})", "use withSession and sendMessage/sendUserMessage");
		},
	};
	return strictObject(writer, "SessionManager (newSession setup)");
}
