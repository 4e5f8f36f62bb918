#!/usr/bin/env node
// pi-rs's Node extension host. pi-rs starts it with the socket path in PI_EXTENSION_SOCKET;
// it connects, says `hello`, loads extensions on `load`, keeps the mirrored state, answers
// pi-rs's requests, and exits after `shutdown` or when the socket closes.
// Protocol: docs/extension-protocol.md. stdout/stderr belong to the extensions: the host's
// own diagnostics go to pi-rs as `log` notifications.

import { builtinUpdates } from "./shims/lib/builtin-tools.mjs";
import * as components from "./lib/components.mjs";
import { Connection } from "./lib/connection.mjs";
import * as dispatch from "./lib/dispatch.mjs";
import { deliverLocal } from "./lib/event-bus.mjs";
import { clearPendingSessionName } from "./lib/extension-api.mjs";
import { applyState, host, log } from "./lib/host.mjs";
import { loadExtensions } from "./lib/loader.mjs";
import { onModelEvent } from "./lib/model-client.mjs";
import { branchChanged, terminalInput } from "./lib/ui-context.mjs";

const PROTOCOL = 1;

async function main() {
	const socketPath = process.env.PI_EXTENSION_SOCKET;
	delete process.env.PI_EXTENSION_SOCKET;
	if (!socketPath) {
		process.stderr.write("pi-rs extension host: PI_EXTENSION_SOCKET is not set (pi-rs starts this program)\n");
		process.exit(2);
	}
	const conn = await Connection.connect(socketPath);
	host.conn = conn;
	conn.onClosed(() => process.exit(0));

	conn.onRequest("load", (params) => loadExtensions(params));
	conn.onRequest("event", dispatch.runEvent);
	conn.onRequest("tool", dispatch.runTool);
	conn.onRequest("prepare_arguments", dispatch.prepareArguments);
	conn.onRequest("command", dispatch.runCommand);
	conn.onRequest("completions", dispatch.completions);
	conn.onRequest("shortcut", dispatch.runShortcut);
	conn.onRequest("render", dispatch.render);
	conn.onRequest("input", dispatch.input);
	conn.onRequest("terminal_input", terminalInput);
	conn.onRequest("shutdown", () => {
		// Answer first, then leave once the answer is written.
		setImmediate(() => conn.socket.end(() => process.exit(0)));
		return null;
	});

	conn.onNotify("state", (patch) => {
		const branchBefore = host.state.gitBranch;
		applyState(patch);
		if ("gitBranch" in patch && patch.gitBranch !== branchBefore) branchChanged();
	});
	conn.onNotify("session_reset", (params) => {
		host.session.reset(params);
		clearPendingSessionName();
	});
	conn.onNotify("session_append", (params) => {
		host.session.append(params);
		if (params.entries?.some((e) => e?.type === "session_info")) clearPendingSessionName();
	});
	conn.onNotify("session_leaf", (params) => host.session.setLeaf(params));
	conn.onNotify("cancel", (params) => conn.cancel(params.id));
	conn.onNotify("bus", (params) => deliverLocal(params.channel, params.data));
	conn.onNotify("model_event", onModelEvent);
	conn.onNotify("builtin_tool_update", (params) => builtinUpdates.get(params.id)?.(params.partial));
	conn.onNotify("component_close", (params) => components.closedByPiRs(params.component));

	conn.notify("hello", { protocol: PROTOCOL, runtime: `node ${process.version}` });

	// An extension's stray rejection or exception must not take the host down (pi isolates
	// extension failures): report it and carry on.
	process.on("unhandledRejection", (reason) => log("error", `unhandled rejection in an extension: ${describe(reason)}`));
	process.on("uncaughtException", (err) => log("error", `uncaught exception in an extension: ${describe(err)}`));
}

/** @param {unknown} err */
function describe(err) {
	return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

main().catch((err) => {
	process.stderr.write(`pi-rs extension host: ${describe(err)}\n`);
	process.exit(1);
});
