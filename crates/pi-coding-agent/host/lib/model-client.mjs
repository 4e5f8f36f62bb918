// pi-ai's `stream` / `complete` (and the `Simple` variants) for extensions: the model call
// runs in pi-rs with the user's keys, OAuth and models.json (`model_stream`), its events
// come back as `model_event` notifications. As in pi-ai, a failed call does not throw: the
// final message has stopReason "error" (or "aborted" when the signal aborted it).

import { conn, host } from "./host.mjs";

/** Event streams of `model_stream` requests in flight, by request id. @type {Map<number, AssistantMessageEventStream>} */
const streams = new Map();

/** pi-ai's AssistantMessageEventStream: async-iterable events, `result()` the final message. */
export class AssistantMessageEventStream {
	constructor() {
		/** @type {any[]} */
		this.queue = [];
		/** @type {((r: IteratorResult<any>) => void)[]} */
		this.waiting = [];
		this.ended = false;
		this.finalMessage = new Promise((resolve) => {
			this.resolveFinal = resolve;
		});
	}
	/** @param {any} event */
	push(event) {
		if (this.ended) return;
		if (event?.type === "done") this.resolveFinal(event.message);
		else if (event?.type === "error") this.resolveFinal(event.error);
		const waiter = this.waiting.shift();
		if (waiter) waiter({ value: event, done: false });
		else this.queue.push(event);
	}
	/** @param {any} [message] */
	end(message) {
		if (message) this.resolveFinal(message);
		this.ended = true;
		for (const waiter of this.waiting.splice(0)) waiter({ value: undefined, done: true });
	}
	result() {
		return this.finalMessage;
	}
	[Symbol.asyncIterator]() {
		return {
			next: () => {
				if (this.queue.length) return Promise.resolve({ value: this.queue.shift(), done: false });
				if (this.ended) return Promise.resolve({ value: undefined, done: true });
				return new Promise((resolve) => this.waiting.push(resolve));
			},
		};
	}
}

/** pi-ai's `createAssistantMessageEventStream()`. */
export function createAssistantMessageEventStream() {
	return new AssistantMessageEventStream();
}

/** `model_event {id, event}`. @param {{id: number, event: any}} params */
export function onModelEvent(params) {
	streams.get(params.id)?.push(params.event);
}

/** Options as JSON: the signal stays here, callbacks cannot cross. @param {any} options */
function wireOptions(options) {
	const out = {};
	for (const [key, value] of Object.entries(options ?? {})) {
		if (key === "signal" || typeof value === "function" || value === undefined) continue;
		out[key] = value;
	}
	return out;
}

/** A final message for a call that failed before pi-rs answered with one. @param {any} model @param {string} reason @param {string} text */
function failure(model, reason, text) {
	return {
		role: "assistant",
		content: [],
		api: model?.api,
		provider: model?.provider,
		model: model?.id,
		usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
		stopReason: reason,
		errorMessage: text,
		timestamp: Date.now(),
	};
}

/** @param {any} model @param {any} context @param {any} [options] @param {boolean} simple */
function startStream(model, context, options, simple) {
	const stream = new AssistantMessageEventStream();
	const signal = options?.signal;
	if (signal?.aborted) {
		stream.end(failure(model, "aborted", "Request was aborted"));
		return stream;
	}
	const connection = conn("pi-ai stream");
	let id;
	const onAbort = () => {
		if (id !== undefined) connection.notify("cancel", { id });
	};
	signal?.addEventListener("abort", onAbort, { once: true });
	connection
		.request("model_stream", { model, context, options: wireOptions(options), simple }, (requestId) => {
			id = requestId;
			streams.set(requestId, stream);
		})
		.then(
			(message) => stream.end(message ?? failure(model, "error", "pi-rs answered model_stream without a message")),
			(err) => stream.end(failure(model, signal?.aborted ? "aborted" : "error", err instanceof Error ? err.message : String(err))),
		)
		.finally(() => {
			signal?.removeEventListener("abort", onAbort);
			streams.delete(id);
		});
	return stream;
}

export const stream = (model, context, options) => startStream(model, context, options, false);
export const streamSimple = (model, context, options) => startStream(model, context, options, true);
export const complete = (model, context, options) => startStream(model, context, options, false).result();
export const completeSimple = (model, context, options) => startStream(model, context, options, true).result();

/** pi-ai's `getModel(provider, id)` over pi-rs's models. @param {string} provider @param {string} id */
export function getModel(provider, id) {
	return (host.state.models?.all ?? []).find((m) => m.provider === provider && m.id === id);
}

/** @param {string} provider */
export function getModels(provider) {
	return (host.state.models?.all ?? []).filter((m) => m.provider === provider);
}

export function getProviders() {
	return [...new Set((host.state.models?.all ?? []).map((m) => m.provider))];
}
