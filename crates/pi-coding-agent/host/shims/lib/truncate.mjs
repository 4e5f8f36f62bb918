// pi's output truncation helpers (`truncateHead`, `truncateTail`, `truncateLine`,
// `formatSize`, the default limits): two limits, lines and bytes, whichever is hit first;
// whole lines only (except a tail whose last line alone is too long).

export const DEFAULT_MAX_LINES = 2000;
export const DEFAULT_MAX_BYTES = 50 * 1024;
export const GREP_MAX_LINE_LENGTH = 500;

/** @param {number} bytes */
export function formatSize(bytes) {
	if (bytes < 1024) return `${bytes}B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
	return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

/** @param {string} s */
const byteLength = (s) => Buffer.byteLength(s, "utf8");

function result(content, truncated, truncatedBy, totals, kept, extra = {}) {
	return {
		content,
		truncated,
		truncatedBy,
		totalLines: totals.lines,
		totalBytes: totals.bytes,
		outputLines: kept,
		outputBytes: byteLength(content),
		lastLinePartial: false,
		firstLineExceedsLimit: false,
		maxLines: totals.maxLines,
		maxBytes: totals.maxBytes,
		...extra,
	};
}

/** Keeps the first lines. @param {string} content @param {{maxLines?: number, maxBytes?: number}} [options] */
export function truncateHead(content, options = {}) {
	const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
	const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
	const lines = content.split("\n");
	const totals = { lines: lines.length, bytes: byteLength(content), maxLines, maxBytes };
	if (totals.lines <= maxLines && totals.bytes <= maxBytes) return result(content, false, null, totals, totals.lines);
	if (byteLength(lines[0]) > maxBytes) return result("", true, "bytes", totals, 0, { firstLineExceedsLimit: true });
	const kept = [];
	let bytes = 0;
	let by = "lines";
	for (const line of lines) {
		if (kept.length >= maxLines) break;
		const size = byteLength(line) + (kept.length ? 1 : 0);
		if (bytes + size > maxBytes) {
			by = "bytes";
			break;
		}
		kept.push(line);
		bytes += size;
	}
	if (kept.length >= maxLines && bytes <= maxBytes) by = "lines";
	return result(kept.join("\n"), true, by, totals, kept.length);
}

/** The end of `s` that fits in `maxBytes`, cut on a character boundary. @param {string} s @param {number} maxBytes */
function tailBytes(s, maxBytes) {
	const buf = Buffer.from(s, "utf8");
	if (buf.length <= maxBytes) return s;
	let start = buf.length - maxBytes;
	while (start < buf.length && (buf[start] & 0xc0) === 0x80) start++;
	return buf.subarray(start).toString("utf8");
}

/** Keeps the last lines. @param {string} content @param {{maxLines?: number, maxBytes?: number}} [options] */
export function truncateTail(content, options = {}) {
	const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
	const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
	const lines = content.split("\n");
	const totals = { lines: lines.length, bytes: byteLength(content), maxLines, maxBytes };
	if (totals.lines <= maxLines && totals.bytes <= maxBytes) return result(content, false, null, totals, totals.lines);
	const kept = [];
	let bytes = 0;
	let by = "lines";
	let partial = false;
	for (let i = lines.length - 1; i >= 0 && kept.length < maxLines; i--) {
		const size = byteLength(lines[i]) + (kept.length ? 1 : 0);
		if (bytes + size > maxBytes) {
			by = "bytes";
			if (kept.length === 0) {
				const piece = tailBytes(lines[i], maxBytes);
				kept.unshift(piece);
				bytes = byteLength(piece);
				partial = true;
			}
			break;
		}
		kept.unshift(lines[i]);
		bytes += size;
	}
	if (kept.length >= maxLines && bytes <= maxBytes) by = "lines";
	return result(kept.join("\n"), true, by, totals, kept.length, { lastLinePartial: partial });
}

/** @param {string} line @param {number} [maxChars] */
export function truncateLine(line, maxChars = GREP_MAX_LINE_LENGTH) {
	if (line.length <= maxChars) return { text: line, wasTruncated: false };
	return { text: `${line.slice(0, maxChars)}... [truncated]`, wasTruncated: true };
}
