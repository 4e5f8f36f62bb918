//! Reading a session file: line by line, tolerant, honest and lossless.
//! Fields older pi versions did not write take pi's defaults; a JSON line
//! that cannot be typed is kept verbatim ([`RawEntry`](super::RawEntry));
//! a line that is not JSON is skipped and reported with its line number;
//! old formats (versions 1 and 2) are migrated to version 3, with the text
//! of the migrated file for an atomic rewrite that keeps every line.

use std::fmt;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use serde_json::Value;

use super::SessionError;
use super::entry::{CURRENT_SESSION_VERSION, SessionEntry, SessionHeader};
use super::lines::{self, LineReader, MakeEntry, json_diagnostic};
use super::migrate_file::migrate;

/// Why a line of a session file was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// The line is not valid JSON.
    InvalidJson,
    /// Valid JSON, but not an entry, and not kept (not UTF-8 text).
    InvalidEntry,
    /// Valid JSON, but not an entry this version can type (unknown `type`,
    /// wrong types): kept as a [`RawEntry`](super::RawEntry), not skipped.
    KeptVerbatim,
    /// The last line has no newline and does not parse: a crash mid-append.
    TornLastLine,
}

/// A line that was skipped or kept untyped: where and why.
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
    /// Lines that were skipped or kept untyped.
    pub diagnostics: Vec<LoadDiagnostic>,
    /// The version the file had when it was migrated, `None` when it was current.
    pub migrated_from: Option<u32>,
    /// False when the last line has no newline (the next append must start a new line).
    pub ends_with_newline: bool,
}

/// The text of a migrated file: every line of the old file in its place,
/// entries migrated, lines that are not JSON kept verbatim.
pub(super) type MigratedText = Result<Vec<u8>, MigrationRefused>;

/// Why an old-format file cannot be written back in the current format
/// without losing something.
#[derive(Debug, thiserror::Error)]
pub(super) enum MigrationRefused {
    /// Lines JavaScript wrote with lone surrogates, which serde_json cannot.
    #[error(
        "line(s) {0:?} hold lone UTF-16 surrogate escapes that this version cannot write back unchanged"
    )]
    LoneSurrogates(Vec<usize>),
    /// A migrated value does not serialize.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A line refers to an entry that is not there.
    #[error("entry {0} is missing")]
    MissingEntry(usize),
}

/// Reads and parses a session file.
///
/// Errors: the file cannot be read ([`SessionError::Io`]), has no lines
/// ([`SessionError::EmptyFile`]) or its first line is not a session header
/// ([`SessionError::InvalidHeader`]). Every other bad line becomes a
/// [`LoadDiagnostic`] (also logged with `tracing::warn!`).
pub fn load_session_file(path: &Path) -> Result<LoadedSession, SessionError> {
    let read = read_session_file(path, false, 0, None, &mut |entry, _| entry)?;
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
    /// For a migrated file: its text in the current version, or why it
    /// cannot be written without losing something.
    pub(super) migrated_text: Option<MigratedText>,
}

/// A line of an old-format file: the header, a parsed entry (by position
/// among the parsed ones) or a line kept verbatim.
enum OldLine {
    Header,
    Json(usize),
    Verbatim(Vec<u8>),
}

/// [`load_session_file`], with `make` building what is kept of each entry
/// from the entry and, with `keep_spans`, where the line of a message entry
/// is in the file (`None` for other entries and for migrated files).
/// `lines`: how many lines the file has, when the caller counted them
/// ([`scan_file`](super::horizon::scan_file)), to size the entry list (0:
/// unknown). `horizon`: where the lines whose message entries `make` may
/// keep as outlines end ([`super::horizon`]; a current-version file only).
pub(super) fn read_session_file<T, M: MakeEntry<T>>(
    path: &Path,
    keep_spans: bool,
    lines: usize,
    horizon: Option<u64>,
    make: &mut M,
) -> Result<ReadFile<T>, SessionError> {
    let io = |source| SessionError::Io {
        path: path.to_path_buf(),
        source,
    };
    super::check_regular(path)?;
    let file = File::open(path).map_err(io)?;
    let mut reader = LineReader::new(BufReader::with_capacity(1 << 16, file));
    let mut text = Vec::new();
    let mut header: Option<SessionHeader> = None;
    let mut header_value = Value::Null;
    // Room for the entries a run appends (an eighth more, as the manager
    // grows the list): an exactly sized list was copied whole by the first
    // append. Room never written is never touched.
    let mut entries = Vec::with_capacity(lines + lines / 8);
    let mut diagnostics = Vec::new();
    let mut old_lines: Vec<OldLine> = Vec::new();
    let mut lossy_lines: Vec<usize> = Vec::new();

    while let Some(line) = reader.next_into(&mut text).map_err(io)? {
        match parse_line(&text[line.range.clone()]) {
            Ok((value, lossy)) => {
                if lossy {
                    lossy_lines.push(line.number);
                }
                header_value = value.clone();
                let parsed = parse_header(value).ok_or_else(|| SessionError::InvalidHeader {
                    path: path.to_path_buf(),
                    line: line.number,
                })?;
                header = Some(parsed);
                old_lines.push(OldLine::Header);
                break;
            }
            Err(err) => {
                diagnostics.push(json_diagnostic(&line, &err));
                old_lines.push(OldLine::Verbatim(text[line.range.clone()].to_vec()));
            }
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
            lines,
            keep_spans,
            horizon,
            make,
            &mut entries,
            &mut diagnostics,
        )
        .map_err(io)?;
    } else {
        text.clear();
        while let Some(line) = reader.next_into(&mut text).map_err(io)? {
            match parse_line(&text[line.range.clone()]) {
                Ok((value, lossy)) => {
                    if lossy {
                        lossy_lines.push(line.number);
                    }
                    old_lines.push(OldLine::Json(old_values.len()));
                    old_values.push((line.number, value));
                }
                Err(err) => {
                    diagnostics.push(json_diagnostic(&line, &err));
                    old_lines.push(OldLine::Verbatim(text[line.range.clone()].to_vec()));
                }
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

    let mut migrated_text = None;
    let migrated_from = if version < CURRENT_SESSION_VERSION {
        migrate(&mut old_values, version);
        header.version = Some(CURRENT_SESSION_VERSION);
        if let Value::Object(map) = &mut header_value {
            // As pi's migration sets it: a new key goes last.
            map.insert("version".into(), CURRENT_SESSION_VERSION.into());
        }
        migrated_text = Some(if lossy_lines.is_empty() {
            migrated_file_text(&header_value, &old_lines, &old_values)
        } else {
            Err(MigrationRefused::LoneSurrogates(lossy_lines))
        });
        for (line, value) in old_values {
            let entry = SessionEntry::from_value_or_raw(&value)?;
            if let SessionEntry::Raw(raw) = &entry {
                diagnostics.push(LoadDiagnostic {
                    line,
                    kind: DiagnosticKind::KeptVerbatim,
                    reason: raw.reason.clone(),
                });
            }
            entries.push(make.whole(entry, None));
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
        migrated_text,
    })
}

/// The text of a migrated file: lines that were not JSON stay in their
/// place byte for byte, every other line is its migrated JSON value, as
/// pi's rewrite writes it.
fn migrated_file_text(
    header: &Value,
    lines: &[OldLine],
    values: &[(usize, Value)],
) -> MigratedText {
    let mut out = Vec::new();
    let json = |value: &Value, out: &mut Vec<u8>| -> Result<(), MigrationRefused> {
        serde_json::to_writer(&mut *out, value)?;
        out.push(b'\n');
        Ok(())
    };
    for line in lines {
        match line {
            OldLine::Verbatim(bytes) => {
                out.extend_from_slice(bytes);
                out.push(b'\n');
            }
            OldLine::Header => json(header, &mut out)?,
            OldLine::Json(index) => {
                let value = values
                    .get(*index)
                    .map(|(_, v)| v)
                    .ok_or(MigrationRefused::MissingEntry(*index))?;
                json(value, &mut out)?;
            }
        }
    }
    Ok(out)
}

/// The entry lines of a session file in the current format, as pi's fork
/// copies them: every JSON line after the header, verbatim (for an old
/// file: migrated). `None` when an old file cannot be migrated unchanged.
pub(super) fn current_entry_lines(path: &Path) -> Result<Option<Vec<String>>, SessionError> {
    let read = read_session_file(path, false, 0, None, &mut |_, _| ())?;
    let text = match read.migrated_text {
        Some(Ok(text)) => text,
        Some(Err(_)) => return Ok(None),
        None => std::fs::read(path).map_err(|source| SessionError::Io {
            path: path.to_path_buf(),
            source,
        })?,
    };
    let mut lines = Vec::new();
    let mut header_seen = false;
    for line in text.split(|&b| b == b'\n').map(<[u8]>::trim_ascii) {
        // Blank lines and lines that are not JSON are not entries.
        let Ok(line) = std::str::from_utf8(line) else {
            continue;
        };
        if line.is_empty() || parse_line(line.as_bytes()).is_err() {
            continue;
        }
        if header_seen {
            lines.push(line.to_owned());
        }
        header_seen = true;
    }
    Ok(Some(lines))
}

/// Parses one line; a line that fails only because of lone UTF-16 surrogate
/// escapes (which JavaScript writes, serde_json rejects) is retried with
/// those escapes replaced by U+FFFD.
/// The flag is true when escapes were replaced.
pub(super) fn parse_line(bytes: &[u8]) -> Result<(Value, bool), serde_json::Error> {
    match parse_json(bytes) {
        Ok(value) => Ok((value, false)),
        Err(err) => match replace_lone_surrogates(bytes) {
            Some(fixed) => parse_json(&fixed)
                .map(|value| (value, true))
                .map_err(|_| err),
            None => Err(err),
        },
    }
}

/// Parses JSON bytes: a UTF-8 check of the whole line first, then
/// serde_json's reader for text, which does not check each string again
/// (its byte reader does, which was an eighth of a resume's instructions).
/// Bytes that are not UTF-8 go to the byte reader, so its error says where.
pub(super) fn parse_json<'a, T: serde::Deserialize<'a>>(
    bytes: &'a [u8],
) -> Result<T, serde_json::Error> {
    match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(bytes),
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

pub(super) fn parse_header(value: Value) -> Option<SessionHeader> {
    let is_header = value.get("type").and_then(Value::as_str) == Some("session")
        && value.get("id").is_some_and(Value::is_string);
    if !is_header {
        return None;
    }
    serde_json::from_value(value).ok()
}
