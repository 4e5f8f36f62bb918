// `pi.events`: the bus extensions talk to each other over. Local listeners (every extension
// of this host) hear an emit at once, as in pi; the emit also goes to pi-rs (`bus_emit`) for
// the extensions outside this host, and theirs come back as `bus` notifications.

import { EventEmitter } from "node:events";
import { fireAndForget, host } from "./host.mjs";

const emitter = new EventEmitter();
emitter.setMaxListeners(0);

/** Delivers to this host's listeners only. @param {string} channel @param {unknown} data */
export function deliverLocal(channel, data) {
	emitter.emit(channel, data);
}

/** The bus object every extension's `pi.events` is. */
export const eventBus = {
	/** @param {string} channel @param {unknown} data */
	emit(channel, data) {
		deliverLocal(channel, data);
		if (host.conn && !host.conn.closed) fireAndForget("bus_emit", { channel, data: data === undefined ? null : data });
	},
	/** @param {string} channel @param {(data: unknown) => unknown} handler @returns {() => void} */
	on(channel, handler) {
		const safe = async (/** @type {unknown} */ data) => {
			try {
				await handler(data);
			} catch (err) {
				console.error(`Event handler error (${channel}):`, err);
			}
		};
		emitter.on(channel, safe);
		return () => emitter.off(channel, safe);
	},
	clear() {
		emitter.removeAllListeners();
	},
};
