//! Summarizing a session file for a picker while reading a bounded number of
//! its bytes: the whole file when it is small, else a head window (header,
//! first user message) and a tail window (latest activity, latest name).
//!
//! pi reads every line of every file; on a 100 MB session that is seconds
//! and hundreds of megabytes. Here a file costs at most
//! [`HEAD_WINDOW`] + [`TAIL_WINDOW`] bytes (plus the header line when it is
//! longer than the head window, up to [`MAX_HEADER`]), so listing time does
//! not depend on session size. For windowed files the message count is an
//! estimate (see [`Summary::exact`]) and a name set only in the middle of the
//! file is not seen.

use std::io::{self, Read, Seek, SeekFrom};

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Number, Value};

/// Bytes read from the start of a large file.
pub(crate) const HEAD_WINDOW: u64 = 128 * 1024;
/// Bytes read from the end of a large file.
pub(crate) const TAIL_WINDOW: u64 = 128 * 1024;
/// The longest header line accepted when it does not fit the head window.
pub(crate) const MAX_HEADER: u64 = 1024 * 1024;

/// What a bounded read learned about a session file.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Summary {
    /// The header line, parsed.
    pub(crate) header: Value,
    /// Latest non-empty `session_info` name (trimmed) seen.
    pub(crate) name: Option<String>,
    /// Number of `message` entries (estimated when not [`Self::exact`]).
    pub(crate) message_count: usize,
    /// Latest user/assistant message time seen, in milliseconds.
    pub(crate) last_activity: Option<i64>,
    /// Text of the first user message seen ("" when none).
    pub(crate) first_message: String,
    /// True when every line of the file was read.
    pub(crate) exact: bool,
}

/// The fields of an entry line the summary needs; the rest is skipped
/// without being built.
#[derive(Deserialize)]
struct EntryProbe {
    #[serde(rename = "type")]
    kind: Option<String>,
    name: Option<Value>,
    timestamp: Option<Value>,
    message: Option<MessageProbe>,
}

#[derive(Deserialize)]
struct MessageProbe {
    role: Option<String>,
    timestamp: Option<Number>,
    content: Option<IgnoredAny>,
}

/// Summarizes a session file of `len` bytes read from `reader`; `Ok(None)`
/// when its first line is not a session header.
pub(crate) fn summarize<R: Read + Seek>(mut reader: R, len: u64) -> io::Result<Option<Summary>> {
    let whole = len <= HEAD_WINDOW + TAIL_WINDOW;
    let head_len = if whole { len } else { HEAD_WINDOW };
    let mut head = Vec::new();
    (&mut reader).take(head_len).read_to_end(&mut head)?;
    // The header line must be complete: read on (up to MAX_HEADER) when it
    // is long, then one more window for the entries after it.
    let start = head.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let mut header_end = head[start..].iter().position(|b| *b == b'\n');
    while header_end.is_none() && !whole {
        let before = head.len();
        if before as u64 >= MAX_HEADER {
            return Ok(None);
        }
        (&mut reader).take(HEAD_WINDOW).read_to_end(&mut head)?;
        if head.len() == before {
            break;
        }
        header_end = head[before..]
            .iter()
            .position(|b| *b == b'\n')
            .map(|e| before + e - start);
        if header_end.is_some() {
            (&mut reader).take(HEAD_WINDOW).read_to_end(&mut head)?;
        }
    }
    let header_end = header_end.map_or(head.len(), |e| start + e);
    let Ok(header) = serde_json::from_slice::<Value>(&head[start..header_end]) else {
        return Ok(None);
    };
    if header.get("type").and_then(Value::as_str) != Some("session")
        || !header.get("id").is_some_and(Value::is_string)
    {
        return Ok(None);
    }
    let mut summary = Summary {
        header,
        exact: whole,
        ..Summary::default()
    };
    if whole {
        scan(&head[header_end..], &mut summary);
        return Ok(Some(summary));
    }
    // Head: complete lines only (the last one may be cut by the window).
    let head_body = &head[header_end..];
    let head_lines = head_body
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(&head_body[..0], |end| &head_body[..end]);
    let head_count = scan(head_lines, &mut summary);
    let head_read = head.len() as u64;

    // Tail: skip the first (cut) line of the window.
    let tail_start = len.saturating_sub(TAIL_WINDOW).max(head_read);
    reader.seek(SeekFrom::Start(tail_start))?;
    let mut tail = Vec::new();
    reader.take(len - tail_start).read_to_end(&mut tail)?;
    let tail_lines = match tail.iter().position(|b| *b == b'\n') {
        Some(cut) if tail_start > head_read => &tail[cut + 1..],
        _ => &tail[..],
    };
    let tail_count = scan(tail_lines, &mut summary);

    // Estimate the messages between the windows from their density.
    let sampled = head_lines.len() + tail_lines.len();
    let seen = head_count + tail_count;
    let body = len.saturating_sub(header_end as u64);
    summary.message_count = if sampled == 0 {
        seen
    } else {
        let estimate = seen as f64 * body as f64 / sampled as f64;
        (estimate.round() as usize).max(seen)
    };
    Ok(Some(summary))
}

/// Folds every entry line of `bytes` into `summary`; returns how many
/// `message` entries there were.
fn scan(bytes: &[u8], summary: &mut Summary) -> usize {
    let mut messages = 0;
    for line in bytes.split(|b| *b == b'\n') {
        let line = line.trim_ascii();
        if line.is_empty() {
            continue;
        }
        let Ok(entry) = serde_json::from_slice::<EntryProbe>(line) else {
            continue;
        };
        match entry.kind.as_deref() {
            Some("session_info") => {
                if let Some(Value::String(name)) = entry.name
                    && !name.is_empty()
                {
                    summary.name = Some(name.trim().to_owned());
                }
            }
            Some("message") => {
                messages += 1;
                summary.message_count += 1;
                fold_message(line, &entry, summary);
            }
            _ => {}
        }
    }
    messages
}

fn fold_message(line: &[u8], entry: &EntryProbe, summary: &mut Summary) {
    let Some(message) = &entry.message else {
        return;
    };
    let role = message.role.as_deref();
    if !matches!(role, Some("user" | "assistant")) || message.content.is_none() {
        return;
    }
    let time = message
        .timestamp
        .as_ref()
        .and_then(Number::as_i64)
        .or_else(|| {
            entry
                .timestamp
                .as_ref()
                .and_then(Value::as_str)
                .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
                .map(|t| t.timestamp_millis())
        });
    if let Some(time) = time {
        summary.last_activity = Some(summary.last_activity.map_or(time, |t| t.max(time)));
    }
    if summary.first_message.is_empty() && role == Some("user") {
        // Only now is the content built, once per file.
        if let Ok(full) = serde_json::from_slice::<Value>(line)
            && let Some(message) = full.get("message")
        {
            summary.first_message = message_text(message);
        }
    }
}

/// The text blocks of a message's content, joined by spaces.
fn message_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

#[cfg(test)]
#[path = "summary_tests.rs"]
mod tests;
