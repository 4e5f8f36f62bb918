// The protocol transport (docs/extension-protocol.md, "Transport" and "Messages"): one JSON
// object per line over the Unix socket, requests both ways with ids, responses in any order,
// notifications. This module knows nothing about extensions; `main.mjs` registers the
// request and notification handlers.

import net from "node:net";

/** @typedef {(params: any, request: {id: number, signal: AbortSignal}) => any} RequestHandler */
/** @typedef {(params: any) => void} NotifyHandler */

/** An error response carried back to the side that asked. */
export class RemoteError extends Error {
	/** @param {{message?: string, stack?: string}} error @param {string} method */
	constructor(error, method) {
		super(error?.message ?? `pi-rs answered ${method} with an error`);
		this.name = "RemoteError";
		if (error?.stack) this.remoteStack = error.stack;
	}
}

export class Connection {
	/** @param {net.Socket} socket */
	constructor(socket) {
		this.socket = socket;
		this.nextId = 0;
		/** @type {Map<number, {resolve: Function, reject: Function, method: string}>} */
		this.pending = new Map();
		/** @type {Map<string, RequestHandler>} */
		this.requestHandlers = new Map();
		/** @type {Map<string, NotifyHandler>} */
		this.notifyHandlers = new Map();
		/** AbortControllers of pi-rs requests in flight, by their id (for `cancel`). */
		/** @type {Map<number, AbortController>} */
		this.inFlight = new Map();
		this.closed = false;
		/** @type {Array<() => void>} */
		this.closeListeners = [];
		this.buffer = "";
		socket.setEncoding("utf8");
		socket.setNoDelay?.(true);
		socket.on("data", (chunk) => this.onData(chunk));
		socket.on("close", () => this.onClose());
		socket.on("error", () => this.onClose());
	}

	/** Connects to the socket at `path`. @param {string} path @returns {Promise<Connection>} */
	static connect(path) {
		return new Promise((resolve, reject) => {
			const socket = net.createConnection(path);
			socket.once("connect", () => resolve(new Connection(socket)));
			socket.once("error", reject);
		});
	}

	/** @param {string} method @param {RequestHandler} handler */
	onRequest(method, handler) {
		this.requestHandlers.set(method, handler);
	}

	/** @param {string} method @param {NotifyHandler} handler */
	onNotify(method, handler) {
		this.notifyHandlers.set(method, handler);
	}

	/** @param {() => void} listener */
	onClosed(listener) {
		this.closeListeners.push(listener);
	}

	/** Sends a request to pi-rs; resolves with its result, rejects with its error.
	 * `onId` learns the id before the request is written (to cancel it later).
	 * @param {string} method @param {any} params @param {(id: number) => void} [onId] */
	request(method, params, onId) {
		if (this.closed) return Promise.reject(new Error(`pi-rs extension host: the connection to pi-rs is closed (${method})`));
		const id = this.nextId++;
		onId?.(id);
		return new Promise((resolve, reject) => {
			this.pending.set(id, { resolve, reject, method });
			this.write({ kind: "request", id, method, params });
		});
	}

	/** @param {string} method @param {any} params */
	notify(method, params) {
		if (this.closed) return;
		this.write({ kind: "notify", method, params });
	}

	/** @param {object} message */
	write(message) {
		this.socket.write(`${JSON.stringify(message)}\n`);
	}

	/** @param {string} chunk */
	onData(chunk) {
		this.buffer += chunk;
		let newline = this.buffer.indexOf("\n");
		while (newline !== -1) {
			let line = this.buffer.slice(0, newline);
			this.buffer = this.buffer.slice(newline + 1);
			if (line.endsWith("\r")) line = line.slice(0, -1);
			if (line.length > 0) this.onLine(line);
			newline = this.buffer.indexOf("\n");
		}
	}

	/** @param {string} line */
	onLine(line) {
		let message;
		try {
			message = JSON.parse(line);
		} catch {
			message = undefined;
		}
		if (message === null || typeof message !== "object" || Array.isArray(message)) {
			this.notify("log", { level: "error", message: `protocol error: a line that is not a JSON object: ${line.slice(0, 200)}` });
			this.socket.destroy();
			return;
		}
		switch (message.kind) {
			case "response":
				return this.onResponse(message);
			case "request":
				return this.onIncomingRequest(message);
			case "notify": {
				const handler = this.notifyHandlers.get(message.method);
				if (!handler) return; // unknown notifications are ignored
				try {
					handler(message.params ?? {});
				} catch (err) {
					this.notify("log", { level: "error", message: `notification ${message.method} failed: ${errorText(err)}` });
				}
				return;
			}
			default:
				this.notify("log", { level: "warn", message: `ignored a message of unknown kind ${JSON.stringify(message.kind)}` });
		}
	}

	/** @param {{id: number, result?: any, error?: any}} message */
	onResponse(message) {
		const waiter = this.pending.get(message.id);
		if (!waiter) return;
		this.pending.delete(message.id);
		if (message.error) waiter.reject(new RemoteError(message.error, waiter.method));
		else waiter.resolve(message.result ?? null);
	}

	/** @param {{id: number, method: string, params: any}} message */
	onIncomingRequest(message) {
		const { id, method } = message;
		const handler = this.requestHandlers.get(method);
		if (!handler) {
			this.write({ kind: "response", id, error: { message: `unknown method: ${method}` } });
			return;
		}
		const controller = new AbortController();
		this.inFlight.set(id, controller);
		let result;
		try {
			result = handler(message.params ?? {}, { id, signal: controller.signal });
		} catch (err) {
			this.inFlight.delete(id);
			this.respondError(id, err);
			return;
		}
		if (result && typeof result.then === "function") {
			result.then(
				(value) => {
					this.inFlight.delete(id);
					this.respond(id, value);
				},
				(err) => {
					this.inFlight.delete(id);
					this.respondError(id, err);
				},
			);
		} else {
			this.inFlight.delete(id);
			this.respond(id, result);
		}
	}

	/** @param {number} id @param {any} value */
	respond(id, value) {
		if (this.closed) return;
		let line;
		try {
			line = JSON.stringify({ kind: "response", id, result: value === undefined ? null : value });
		} catch (err) {
			this.respondError(id, new Error(`the result is not JSON: ${errorText(err)}`));
			return;
		}
		this.socket.write(`${line}\n`);
	}

	/** @param {number} id @param {unknown} err */
	respondError(id, err) {
		if (this.closed) return;
		const error = err instanceof Error ? { message: err.message, stack: err.stack } : { message: String(err) };
		this.write({ kind: "response", id, error });
	}

	/** `cancel {id}` from pi-rs: abort that request's signal. @param {number} id */
	cancel(id) {
		this.inFlight.get(id)?.abort();
	}

	onClose() {
		if (this.closed) return;
		this.closed = true;
		for (const [, waiter] of this.pending) waiter.reject(new Error(`pi-rs extension host: the connection to pi-rs closed during ${waiter.method}`));
		this.pending.clear();
		for (const controller of this.inFlight.values()) controller.abort();
		for (const listener of this.closeListeners) listener();
	}

	close() {
		this.socket.end();
	}
}

/** @param {unknown} err */
export function errorText(err) {
	return err instanceof Error ? err.message : String(err);
}
