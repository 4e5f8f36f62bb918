//! Output truncation shared by the tools: keep the head (file reads,
//! search results) or the tail (command output) within a line limit and a
//! byte limit, whichever is reached first, and never return a partial line
//! except for a single over-long last line kept from the tail.

use std::borrow::Cow;

use serde::Serialize;

/// Line limit of tool output (pi's `DEFAULT_MAX_LINES`).
pub const DEFAULT_MAX_LINES: usize = 2000;

/// Byte limit of tool output, 50 KiB (pi's `DEFAULT_MAX_BYTES`).
pub const DEFAULT_MAX_BYTES: usize = 50 * 1024;

/// Characters kept of one grep output line (pi's `GREP_MAX_LINE_LENGTH`).
pub const GREP_MAX_LINE_LENGTH: usize = 500;

/// The "no line limit" value pi passes when only bytes matter
/// (`Number.MAX_SAFE_INTEGER`); it shows up in `details.truncation.maxLines`.
pub const UNLIMITED_LINES: usize = 9_007_199_254_740_991;

/// Which limit cut the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TruncatedBy {
    /// The line limit.
    Lines,
    /// The byte limit.
    Bytes,
}

/// The limits to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TruncationOptions {
    /// Maximum number of lines.
    pub max_lines: usize,
    /// Maximum number of bytes (UTF-8).
    pub max_bytes: usize,
}

impl Default for TruncationOptions {
    fn default() -> Self {
        Self {
            max_lines: DEFAULT_MAX_LINES,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

impl TruncationOptions {
    /// Only the byte limit (what grep, find and ls use after their own
    /// result limits).
    pub fn bytes_only() -> Self {
        Self {
            max_lines: UNLIMITED_LINES,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

/// The outcome of a truncation, serialized with pi's field names (it is
/// reported as `details.truncation`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TruncationResult {
    /// The kept text.
    pub content: String,
    /// Whether anything was cut.
    pub truncated: bool,
    /// The limit that cut it, `null` when nothing was cut.
    pub truncated_by: Option<TruncatedBy>,
    /// Lines of the input (`split("\n")` count: a trailing newline adds an
    /// empty last line).
    pub total_lines: usize,
    /// Bytes of the input.
    pub total_bytes: usize,
    /// Lines kept.
    pub output_lines: usize,
    /// Bytes kept.
    pub output_bytes: usize,
    /// Tail truncation only: the one kept line is the end of a longer line.
    pub last_line_partial: bool,
    /// Head truncation only: the first line alone is over the byte limit,
    /// so nothing was kept.
    pub first_line_exceeds_limit: bool,
    /// The line limit applied.
    pub max_lines: usize,
    /// The byte limit applied.
    pub max_bytes: usize,
}

impl TruncationResult {
    fn untouched(content: &str, total_lines: usize, options: TruncationOptions) -> Self {
        Self {
            content: content.to_owned(),
            truncated: false,
            truncated_by: None,
            total_lines,
            total_bytes: content.len(),
            output_lines: total_lines,
            output_bytes: content.len(),
            last_line_partial: false,
            first_line_exceeds_limit: false,
            max_lines: options.max_lines,
            max_bytes: options.max_bytes,
        }
    }
}

/// Formats a byte count the way pi does: `512B`, `1.5KB`, `2.0MB`
/// (one decimal, halves rounded up like JavaScript's `toFixed`).
pub fn format_size(bytes: usize) -> String {
    const KB: u128 = 1024;
    const MB: u128 = 1024 * 1024;
    let value = bytes as u128;
    let one_decimal = |unit: u128| {
        let scaled = value * 10;
        let tenths = scaled / unit + u128::from((scaled % unit) * 2 >= unit);
        format!("{}.{}", tenths / 10, tenths % 10)
    };
    if value < KB {
        format!("{bytes}B")
    } else if value < MB {
        format!("{}KB", one_decimal(KB))
    } else {
        format!("{}MB", one_decimal(MB))
    }
}

/// Keeps the first lines of `content` within the limits, never cutting a
/// line. When the first line alone is over the byte limit the result is
/// empty with `first_line_exceeds_limit` set.
pub fn truncate_head(content: &str, options: TruncationOptions) -> TruncationResult {
    let lines: Vec<&str> = content.split('\n').collect();
    let total_lines = lines.len();
    if total_lines <= options.max_lines && content.len() <= options.max_bytes {
        return TruncationResult::untouched(content, total_lines, options);
    }
    let base = TruncationResult {
        content: String::new(),
        truncated: true,
        truncated_by: Some(TruncatedBy::Bytes),
        total_lines,
        total_bytes: content.len(),
        output_lines: 0,
        output_bytes: 0,
        last_line_partial: false,
        first_line_exceeds_limit: false,
        max_lines: options.max_lines,
        max_bytes: options.max_bytes,
    };
    if lines[0].len() > options.max_bytes {
        return TruncationResult {
            first_line_exceeds_limit: true,
            ..base
        };
    }

    let mut kept = 0usize;
    let mut bytes = 0usize;
    let mut truncated_by = TruncatedBy::Lines;
    for (i, line) in lines.iter().enumerate().take(options.max_lines) {
        let line_bytes = line.len() + usize::from(i > 0);
        if bytes + line_bytes > options.max_bytes {
            truncated_by = TruncatedBy::Bytes;
            break;
        }
        kept += 1;
        bytes += line_bytes;
    }
    if kept >= options.max_lines && bytes <= options.max_bytes {
        truncated_by = TruncatedBy::Lines;
    }
    let output = lines[..kept].join("\n");
    TruncationResult {
        truncated_by: Some(truncated_by),
        output_lines: kept,
        output_bytes: output.len(),
        content: output,
        ..base
    }
}

/// Keeps the last lines of `content` within the limits. When the last line
/// alone is over the byte limit, its end is kept (`last_line_partial`).
pub fn truncate_tail(content: &str, options: TruncationOptions) -> TruncationResult {
    let lines: Vec<&str> = content.split('\n').collect();
    let total_lines = lines.len();
    if total_lines <= options.max_lines && content.len() <= options.max_bytes {
        return TruncationResult::untouched(content, total_lines, options);
    }

    let mut first_kept = lines.len();
    let mut bytes = 0usize;
    let mut truncated_by = TruncatedBy::Lines;
    let mut partial: Option<&str> = None;
    while first_kept > 0 && lines.len() - first_kept < options.max_lines {
        let line = lines[first_kept - 1];
        let kept = lines.len() - first_kept;
        let line_bytes = line.len() + usize::from(kept > 0);
        if bytes + line_bytes > options.max_bytes {
            truncated_by = TruncatedBy::Bytes;
            if kept == 0 {
                let end = tail_of_bytes(line, options.max_bytes);
                bytes = end.len();
                partial = Some(end);
            }
            break;
        }
        first_kept -= 1;
        bytes += line_bytes;
    }
    let (output, output_lines) = match partial {
        Some(end) => (end.to_owned(), 1),
        None => (lines[first_kept..].join("\n"), lines.len() - first_kept),
    };
    if output_lines >= options.max_lines && bytes <= options.max_bytes {
        truncated_by = TruncatedBy::Lines;
    }
    TruncationResult {
        truncated: true,
        truncated_by: Some(truncated_by),
        total_lines,
        total_bytes: content.len(),
        output_lines,
        output_bytes: output.len(),
        content: output,
        last_line_partial: partial.is_some(),
        first_line_exceeds_limit: false,
        max_lines: options.max_lines,
        max_bytes: options.max_bytes,
    }
}

/// The longest end of `text` that fits in `max_bytes`, starting on a
/// character boundary.
fn tail_of_bytes(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut start = text.len() - max_bytes;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// Cuts one line to `max_chars` characters, adding `... [truncated]`;
/// the flag says whether it was cut.
pub fn truncate_line(line: &str, max_chars: usize) -> (Cow<'_, str>, bool) {
    match line.char_indices().nth(max_chars) {
        None => (Cow::Borrowed(line), false),
        Some((cut, _)) => (Cow::Owned(format!("{}... [truncated]", &line[..cut])), true),
    }
}

#[cfg(test)]
#[path = "truncate_tests.rs"]
mod tests;
