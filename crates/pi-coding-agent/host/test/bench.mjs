// Measures one `event` round trip through the host (a handler that does nothing): the
// driver sends the request and waits for the response, one at a time; median over N.
// `node test/bench.mjs [N]` prints it; bench.test.mjs runs it under `npm test`.

import path from "node:path";
import { fileURLToPath } from "node:url";
import { FakePiRs, FIXTURES } from "./driver.mjs";

/** @param {number} n @returns {Promise<{median: number, p90: number, p99: number, n: number}>} milliseconds */
export async function measureRoundTrip(n = 1000) {
	const pi = await new FakePiRs().start();
	try {
		const { extensions } = await pi.load([path.join(FIXTURES, "noop.ts")]);
		if (extensions[0].error) throw new Error(extensions[0].error);
		const params = { ext: 0, handler: 0, event: { type: "turn_start", turnIndex: 0, timestamp: 0 } };
		for (let i = 0; i < 300; i++) await pi.request("event", params); // warm up
		const times = [];
		for (let i = 0; i < n; i++) {
			const start = process.hrtime.bigint();
			await pi.request("event", params);
			times.push(Number(process.hrtime.bigint() - start) / 1e6);
		}
		times.sort((a, b) => a - b);
		const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
		return { median: at(0.5), p90: at(0.9), p99: at(0.99), n };
	} finally {
		await pi.stop();
	}
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const n = Number(process.argv[2] ?? 1000);
	const r = await measureRoundTrip(n);
	console.log(`event round trip over ${r.n}: median ${(r.median * 1000).toFixed(1)} µs, p90 ${(r.p90 * 1000).toFixed(1)} µs, p99 ${(r.p99 * 1000).toFixed(1)} µs`);
}
