//! Reading a session file: line by line, tolerant and honest. Every line
//! that cannot be used is skipped and reported with its line number; old
//! formats (versions 1 and 2) are migrated to version 3.

use std::collections::HashSet;
use std::fmt;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use serde_json::Value;

use super::SessionError;
use super::entry::{CURRENT_SESSION_VERSION, SessionEntry, SessionHeader};
use super::ids::generate_entry_id;
use super::lines::{self, LineReader, LineSpan, json_diagnostic};

/// Why a line of a session file was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// The line is not valid JSON.
    InvalidJson,
    /// Valid JSON, but not a known entry (unknown `type`, missing fields, wrong types).
    InvalidEntry,
    /// The last line has no newline and does not parse: a crash mid-append.
    TornLastLine,
}

/// A skipped line: where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadDiagnostic {
    /// 1-based line number in the file.
    pub line: usize,
    /// What kind of problem.
    pub kind: DiagnosticKind,
    /// Human-readable reason (the parser's message).
    pub reason: String,
}

impl fmt::Display for LoadDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

/// A session file as read from disk.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSession {
    /// The header, with `version` 3 after a migration.
    pub header: SessionHeader,
    /// The entries in file order.
    pub entries: Vec<SessionEntry>,
    /// Lines that were skipped.
    pub diagnostics: Vec<LoadDiagnostic>,
    /// The version the file had when it was migrated, `None` when it was current.
    pub migrated_from: Option<u32>,
    /// False when the last line has no newline (the next append must start a new line).
    pub ends_with_newline: bool,
}

/// Reads and parses a session file.
///
/// Errors: the file cannot be read ([`SessionError::Io`]), has no lines
/// ([`SessionError::EmptyFile`]) or its first line is not a session header
/// ([`SessionError::InvalidHeader`]). Every other bad line becomes a
/// [`LoadDiagnostic`] (also logged with `tracing::warn!`).
pub fn load_session_file(path: &Path) -> Result<LoadedSession, SessionError> {
    let read = read_session_file(path, false, |entry, _| entry)?;
    Ok(LoadedSession {
        header: read.header,
        entries: read.entries,
        diagnostics: read.diagnostics,
        migrated_from: read.migrated_from,
        ends_with_newline: read.ends_with_newline,
    })
}

/// A session file as read, each entry made into a `T`.
pub(super) struct ReadFile<T> {
    /// See [`LoadedSession::header`].
    pub(super) header: SessionHeader,
    /// The entries in file order.
    pub(super) entries: Vec<T>,
    /// See [`LoadedSession::diagnostics`].
    pub(super) diagnostics: Vec<LoadDiagnostic>,
    /// See [`LoadedSession::migrated_from`].
    pub(super) migrated_from: Option<u32>,
    /// See [`LoadedSession::ends_with_newline`].
    pub(super) ends_with_newline: bool,
}

/// [`load_session_file`], with `make` building what is kept of each entry
/// from the entry and, with `keep_spans`, where the line of a message entry
/// is in the file (`None` for other entries and for migrated files).
pub(super) fn read_session_file<T>(
    path: &Path,
    keep_spans: bool,
    mut make: impl FnMut(SessionEntry, Option<LineSpan>) -> T,
) -> Result<ReadFile<T>, SessionError> {
    let io = |source| SessionError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let mut reader = LineReader::new(BufReader::with_capacity(1 << 16, file));
    let mut text = Vec::new();
    let mut header: Option<SessionHeader> = None;
    let mut entries = Vec::new();
    let mut diagnostics = Vec::new();

    while let Some(line) = reader.next_into(&mut text).map_err(io)? {
        match parse_line(&text[line.range.clone()]) {
            Ok(value) => {
                let parsed = parse_header(value).ok_or_else(|| SessionError::InvalidHeader {
                    path: path.to_path_buf(),
                    line: line.number,
                })?;
                header = Some(parsed);
                break;
            }
            Err(err) => diagnostics.push(json_diagnostic(&line, &err)),
        }
        text.clear();
    }
    let version = header
        .as_ref()
        .map_or(CURRENT_SESSION_VERSION, |h| h.version.unwrap_or(1));
    let mut old_values: Vec<(usize, Value)> = Vec::new();
    if version >= CURRENT_SESSION_VERSION {
        lines::read_entries(
            &mut reader,
            keep_spans,
            &mut make,
            &mut entries,
            &mut diagnostics,
        )
        .map_err(io)?;
    } else {
        text.clear();
        while let Some(line) = reader.next_into(&mut text).map_err(io)? {
            match parse_line(&text[line.range.clone()]) {
                Ok(value) => old_values.push((line.number, value)),
                Err(err) => diagnostics.push(json_diagnostic(&line, &err)),
            }
            text.clear();
        }
    }
    let ends_with_newline = reader.ends_with_newline();

    let Some(mut header) = header else {
        if diagnostics.is_empty() {
            return Err(SessionError::EmptyFile {
                path: path.to_path_buf(),
            });
        }
        return Err(SessionError::InvalidHeader {
            path: path.to_path_buf(),
            line: diagnostics.first().map_or(1, |d| d.line),
        });
    };

    let migrated_from = if version < CURRENT_SESSION_VERSION {
        migrate(&mut old_values, version);
        header.version = Some(CURRENT_SESSION_VERSION);
        for (line, value) in old_values {
            match SessionEntry::from_value(value) {
                Ok(entry) => entries.push(make(entry, None)),
                Err(err) => diagnostics.push(LoadDiagnostic {
                    line,
                    kind: DiagnosticKind::InvalidEntry,
                    reason: err.to_string(),
                }),
            }
        }
        diagnostics.sort_by_key(|d| d.line);
        Some(version)
    } else {
        None
    };

    for diagnostic in &diagnostics {
        tracing::warn!(path = %path.display(), "skipped session line {diagnostic}");
    }

    Ok(ReadFile {
        header,
        entries,
        diagnostics,
        migrated_from,
        ends_with_newline,
    })
}

/// Parses one line; a line that fails only because of lone UTF-16 surrogate
/// escapes (which JavaScript writes, serde_json rejects) is retried with
/// those escapes replaced by U+FFFD.
fn parse_line(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    match serde_json::from_slice(bytes) {
        Ok(value) => Ok(value),
        Err(err) => match replace_lone_surrogates(bytes) {
            Some(fixed) => serde_json::from_slice(&fixed).map_err(|_| err),
            None => Err(err),
        },
    }
}

fn hex4(bytes: &[u8]) -> Option<u16> {
    let s = std::str::from_utf8(bytes.get(..4)?).ok()?;
    u16::from_str_radix(s, 16).ok()
}

/// Replaces `\uD800`-`\uDFFF` escapes that are not part of a valid pair with
/// `\uFFFD`; `None` when there are none.
pub(super) fn replace_lone_surrogates(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut changed = false;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'u') {
            if let Some(code) = hex4(&bytes[i + 2..]) {
                let is_high = (0xD800..0xDC00).contains(&code);
                let is_low = (0xDC00..0xE000).contains(&code);
                let pair_low = is_high
                    && bytes.get(i + 6) == Some(&b'\\')
                    && bytes.get(i + 7) == Some(&b'u')
                    && hex4(&bytes[(i + 8).min(bytes.len())..])
                        .is_some_and(|c| (0xDC00..0xE000).contains(&c));
                if pair_low {
                    out.extend_from_slice(&bytes[i..i + 12]);
                    i += 12;
                    continue;
                }
                if is_high || is_low {
                    out.extend_from_slice(b"\\ufffd");
                    changed = true;
                    i += 6;
                    continue;
                }
            }
            // Any other escape: copy the backslash and the escaped character.
            out.extend_from_slice(&bytes[i..(i + 2).min(bytes.len())]);
            i += 2;
            continue;
        }
        if bytes[i] == b'\\' {
            out.extend_from_slice(&bytes[i..(i + 2).min(bytes.len())]);
            i += 2;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    changed.then_some(out)
}

fn parse_header(value: Value) -> Option<SessionHeader> {
    let is_header = value.get("type").and_then(Value::as_str) == Some("session")
        && value.get("id").is_some_and(Value::is_string);
    if !is_header {
        return None;
    }
    serde_json::from_value(value).ok()
}

/// Brings version 1 and 2 entries (as raw JSON, in file order) to version 3,
/// as pi's migrations do:
/// - v1 -> v2: every entry gets a fresh short `id` and the previous entry's
///   id as `parentId` (a linear chain); a compaction's `firstKeptEntryIndex`
///   (an index into the file's parsed lines, header included) becomes
///   `firstKeptEntryId`.
/// - v2 -> v3: the message role `hookMessage` is renamed to `custom`.
pub fn migrate(entries: &mut [(usize, Value)], from_version: u32) {
    if from_version < 2 {
        let mut taken: HashSet<String> = HashSet::new();
        let mut ids: Vec<String> = Vec::with_capacity(entries.len());
        let mut prev: Option<String> = None;
        for (_, value) in entries.iter_mut() {
            let id = generate_entry_id(|candidate| taken.contains(candidate));
            taken.insert(id.clone());
            ids.push(id.clone());
            let Value::Object(map) = value else {
                continue;
            };
            map.insert("id".into(), Value::String(id.clone()));
            map.insert(
                "parentId".into(),
                prev.clone().map_or(Value::Null, Value::String),
            );
            prev = Some(id);
            if map.get("type").and_then(Value::as_str) == Some("compaction")
                && let Some(index) = map.get("firstKeptEntryIndex").and_then(Value::as_u64)
            {
                // Index 0 is the header, so entry `k` of the file is ids[k - 1].
                let target = usize::try_from(index)
                    .ok()
                    .and_then(|i| i.checked_sub(1))
                    .and_then(|i| ids.get(i));
                if let Some(target) = target {
                    map.insert("firstKeptEntryId".into(), Value::String(target.clone()));
                }
                map.shift_remove("firstKeptEntryIndex");
            }
        }
    }
    if from_version < 3 {
        for (_, value) in entries.iter_mut() {
            if value.get("type").and_then(Value::as_str) != Some("message") {
                continue;
            }
            if let Some(message) = value.get_mut("message").and_then(Value::as_object_mut)
                && message.get("role").and_then(Value::as_str) == Some("hookMessage")
            {
                message.insert("role".into(), Value::String("custom".into()));
            }
        }
    }
}
