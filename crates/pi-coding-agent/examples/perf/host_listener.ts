// The extension the perf rows load through the extension host: no-op
// handlers of `turn_start` and `context` (reads the transcript, answers
// nothing), as perf/extensions.rs measures in process.
export default function (pi: any) {
	pi.on("turn_start", () => {});
	pi.on("context", (event: any) => {
		void event.messages.length;
	});
}
