#!/usr/bin/env node
// `process.argv[1]` of the host once pi-rs said where it is (load.piExecutable): extensions
// that start pi themselves (`spawn(process.execPath, [process.argv[1], ...args])`, as pi's
// subagent example does) get pi-rs, with their arguments and stdio, and its exit status.

import { spawn } from "node:child_process";

const executable = process.env.PI_RS_EXECUTABLE;
if (!executable) {
	process.stderr.write("pi-rs extension host launcher: PI_RS_EXECUTABLE is not set\n");
	process.exit(127);
}
const child = spawn(executable, process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("error", (err) => {
	process.stderr.write(`pi-rs extension host launcher: cannot start ${executable}: ${err.message}\n`);
	process.exit(127);
});
child.on("exit", (code, signal) => {
	if (signal) process.kill(process.pid, signal);
	else process.exit(code ?? 1);
});
