// `pi.exec(command, args, options)`: runs a program in the host, as pi does (no shell,
// stdout/stderr collected, `signal` and `timeout` kill it with SIGTERM then SIGKILL after
// 5 s); resolves `{stdout, stderr, code, killed}` and never rejects.

import { spawn } from "node:child_process";

/**
 * @param {string} command @param {string[]} args @param {string} cwd
 * @param {{signal?: AbortSignal, timeout?: number, cwd?: string}} [options]
 * @returns {Promise<{stdout: string, stderr: string, code: number, killed: boolean}>}
 */
export function execCommand(command, args, cwd, options = {}) {
	return new Promise((resolve) => {
		let stdout = "";
		let stderr = "";
		let killed = false;
		let timer;
		let child;
		try {
			child = spawn(command, args ?? [], { cwd, shell: false, stdio: ["ignore", "pipe", "pipe"] });
		} catch (err) {
			resolve({ stdout, stderr: err instanceof Error ? err.message : String(err), code: 1, killed });
			return;
		}
		const kill = () => {
			if (killed) return;
			killed = true;
			child.kill("SIGTERM");
			setTimeout(() => {
				if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
			}, 5000).unref();
		};
		const signal = options.signal;
		if (signal) {
			if (signal.aborted) kill();
			else signal.addEventListener("abort", kill, { once: true });
		}
		if (options.timeout && options.timeout > 0) timer = setTimeout(kill, options.timeout);
		child.stdout.on("data", (d) => {
			stdout += d.toString();
		});
		child.stderr.on("data", (d) => {
			stderr += d.toString();
		});
		let settled = false;
		const finish = (/** @type {number} */ code) => {
			if (settled) return;
			settled = true;
			if (timer) clearTimeout(timer);
			signal?.removeEventListener("abort", kill);
			resolve({ stdout, stderr, code, killed });
		};
		child.on("error", () => finish(1));
		child.on("close", (code) => finish(code ?? 0));
		// A detached grandchild holding the pipes open must not hang us: after `exit`, wait a
		// little for the output, then answer anyway.
		child.on("exit", (code) => setTimeout(() => finish(code ?? 0), 200).unref());
	});
}
