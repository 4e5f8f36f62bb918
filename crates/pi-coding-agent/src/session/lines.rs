//! The lines of a session file and the entries parsed from them.
//!
//! Entry lines are parsed straight into [`SessionEntry`] values (no JSON
//! tree in between), one line at a time from a buffered reader. Each line
//! knows where it is in the file, so that an entry can be read again later
//! ([`LineSource`]).

use std::fs::File;
use std::io::{self, BufRead, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use super::entry::SessionEntry;
use super::load::{DiagnosticKind, LoadDiagnostic, parse_json, replace_lone_surrogates};
use super::outline::{MessageOutline, parse_outline};
use super::raw::RawEntry;

/// One non-blank line: where it is in its buffer and in the file.
pub(super) struct Line {
    /// 1-based line number in the file.
    pub(super) number: usize,
    /// False for a last line without a newline.
    pub(super) terminated: bool,
    /// The line without surrounding whitespace, as a range of its buffer.
    pub(super) range: Range<usize>,
    /// The same bytes in the file.
    pub(super) span: LineSpan,
}

/// Where a line is in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct LineSpan {
    /// Offset of its first byte.
    pub(super) offset: u64,
    /// Its length in bytes.
    pub(super) len: usize,
}

/// Reads a file line by line, counting lines and bytes.
pub(super) struct LineReader<R> {
    reader: R,
    line_no: usize,
    offset: u64,
    ends_with_newline: bool,
}

impl<R: BufRead> LineReader<R> {
    pub(super) fn new(reader: R) -> Self {
        Self {
            reader,
            line_no: 0,
            offset: 0,
            ends_with_newline: true,
        }
    }

    /// False when the last line read has no newline.
    pub(super) fn ends_with_newline(&self) -> bool {
        self.ends_with_newline
    }

    /// Appends the next non-blank line to `text`; `None` at the end of the file.
    pub(super) fn next_into(&mut self, text: &mut Vec<u8>) -> io::Result<Option<Line>> {
        loop {
            let start = text.len();
            let read = self.reader.read_until(b'\n', text)?;
            if read == 0 {
                return Ok(None);
            }
            let line_offset = self.offset;
            self.offset += read as u64;
            self.line_no += 1;
            let terminated = text.last() == Some(&b'\n');
            self.ends_with_newline = terminated;
            let raw = &text[start..];
            let trimmed = raw.trim_ascii();
            if trimmed.is_empty() {
                text.truncate(start);
                continue;
            }
            let leading = raw.len() - raw.trim_ascii_start().len();
            let begin = start + leading;
            return Ok(Some(Line {
                number: self.line_no,
                terminated,
                range: begin..begin + trimmed.len(),
                span: LineSpan {
                    offset: line_offset + leading as u64,
                    len: trimmed.len(),
                },
            }));
        }
    }
}

/// What is kept of each entry a reader parses.
pub(super) trait MakeEntry<T> {
    /// What is kept of `entry`; `span`: where its line is (for a message
    /// entry, when spans are kept).
    fn whole(&mut self, entry: SessionEntry, span: Option<LineSpan>) -> T;

    /// What is kept of a message entry read as an outline (before the
    /// horizon); `None` when outlines are not kept, and the line is parsed
    /// whole instead.
    fn outline(&mut self, outline: MessageOutline, span: LineSpan) -> Option<T> {
        let _ = (outline, span);
        None
    }
}

impl<T, F: FnMut(SessionEntry, Option<LineSpan>) -> T> MakeEntry<T> for F {
    fn whole(&mut self, entry: SessionEntry, span: Option<LineSpan>) -> T {
        self(entry, span)
    }
}

/// Parses every remaining line as an entry, in file order, pushing what
/// `make` keeps of it (with the span of a message entry's line, with
/// `keep_spans`) and a diagnostic for each line skipped (not JSON) or kept
/// verbatim as a [`RawEntry`] (JSON, but not an entry this version can
/// type). The message entries on lines before `horizon` (a byte offset)
/// are read as outlines, when `make` keeps them ([`super::horizon`]).
///
/// `line_count`: how many lines the file has (0: unknown). A long file is
/// parsed on two threads ([`super::split_parse`]); the entries and the
/// diagnostics come out the same, in the same order.
pub(super) fn read_entries<R, T, M>(
    lines: &mut LineReader<R>,
    line_count: usize,
    keep_spans: bool,
    horizon: Option<u64>,
    make: &mut M,
    entries: &mut Vec<T>,
    diagnostics: &mut Vec<LoadDiagnostic>,
) -> io::Result<()>
where
    R: BufRead,
    M: MakeEntry<T>,
{
    let mut sink = EntrySink::new(keep_spans, make, entries, diagnostics);
    if super::split_parse::worth_it(line_count) {
        return super::split_parse::read_entries(lines, horizon, &mut sink);
    }
    let mut text = Vec::new();
    while let Some(line) = lines.next_into(&mut text)? {
        let parsed = parse_line(&text[line.range.clone()], line.span, horizon);
        sink.push(&line, parsed, &text);
        text.clear();
    }
    Ok(())
}

/// What a line was read as.
// Short-lived (a batch of lines at most): boxing the entry would cost an
// allocation per line for nothing.
#[allow(clippy::large_enum_variant)]
pub(super) enum LineEntry {
    /// The entry, whole.
    Whole(SessionEntry),
    /// The outline of a message entry before the horizon.
    Outline(MessageOutline),
}

/// What one line parsed to.
pub(super) type ParsedLine = Result<LineEntry, LineError>;

/// Parses the line at `span`: as an outline when it is a message entry
/// before `horizon`, else whole.
pub(super) fn parse_line(bytes: &[u8], span: LineSpan, horizon: Option<u64>) -> ParsedLine {
    if horizon.is_some_and(|horizon| span.offset < horizon)
        && let Some(outline) = parse_outline(bytes)
    {
        return Ok(LineEntry::Outline(outline));
    }
    parse_entry(bytes).map(LineEntry::Whole)
}

/// Where the parsed lines of a file go, in file order.
pub(super) struct EntrySink<'a, T, M> {
    keep_spans: bool,
    make: &'a mut M,
    entries: &'a mut Vec<T>,
    diagnostics: &'a mut Vec<LoadDiagnostic>,
}

impl<'a, T, M: MakeEntry<T>> EntrySink<'a, T, M> {
    /// Entries made with `make` go to `entries` (message entries with
    /// their span, with `keep_spans`), problems to `diagnostics`.
    pub(super) fn new(
        keep_spans: bool,
        make: &'a mut M,
        entries: &'a mut Vec<T>,
        diagnostics: &'a mut Vec<LoadDiagnostic>,
    ) -> Self {
        Self {
            keep_spans,
            make,
            entries,
            diagnostics,
        }
    }

    /// Takes what `line` (whose bytes are in `text`) parsed to: an entry,
    /// an outline, a line kept verbatim, or a diagnostic.
    pub(super) fn push(&mut self, line: &Line, parsed: ParsedLine, text: &[u8]) {
        let bytes = text.get(line.range.clone()).unwrap_or_default();
        let parsed = match parsed {
            Ok(LineEntry::Outline(outline)) => match self.make.outline(outline, line.span) {
                Some(kept) => {
                    self.entries.push(kept);
                    return;
                }
                None => parse_entry(bytes),
            },
            Ok(LineEntry::Whole(entry)) => Ok(entry),
            Err(err) => Err(err),
        };
        match parsed {
            Ok(entry) => {
                let keep = self.keep_spans && matches!(entry, SessionEntry::Message(_));
                self.entries
                    .push(self.make.whole(entry, keep.then_some(line.span)));
            }
            Err(LineError::Json(err)) => self.diagnostics.push(json_diagnostic(line, &err)),
            Err(LineError::Entry(err)) => match raw_entry(bytes, &err) {
                Some(raw) => {
                    self.diagnostics.push(LoadDiagnostic {
                        line: line.number,
                        kind: DiagnosticKind::KeptVerbatim,
                        reason: raw.reason.clone(),
                    });
                    self.entries
                        .push(self.make.whole(SessionEntry::Raw(raw), None));
                }
                None => self.diagnostics.push(LoadDiagnostic {
                    line: line.number,
                    kind: DiagnosticKind::InvalidEntry,
                    reason: err.to_string(),
                }),
            },
        }
    }
}

/// A JSON line that is not a typed entry, kept as it is (`None` when it
/// is not UTF-8 text or not JSON after all).
fn raw_entry(bytes: &[u8], err: &serde_json::Error) -> Option<RawEntry> {
    let text = std::str::from_utf8(bytes).ok()?;
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(_) => serde_json::from_slice(&replace_lone_surrogates(bytes)?).ok()?,
    };
    Some(RawEntry::new(text.to_owned(), &value, err.to_string()))
}

/// A diagnostic for a line that is not JSON (a torn last line when it has no newline).
pub(super) fn json_diagnostic(line: &Line, err: &serde_json::Error) -> LoadDiagnostic {
    LoadDiagnostic {
        line: line.number,
        kind: if line.terminated {
            DiagnosticKind::InvalidJson
        } else {
            DiagnosticKind::TornLastLine
        },
        reason: format!("not valid JSON: {err}"),
    }
}

/// Why a line read again (after the load) is not the entry it was.
#[derive(Debug, thiserror::Error)]
pub(super) enum RereadError {
    /// The file cannot be read there.
    #[error("{}: {source}", path.display())]
    Io {
        /// The session file.
        path: PathBuf,
        /// The failure.
        source: io::Error,
    },
    /// The line is no longer a JSON entry.
    #[error(transparent)]
    Json(serde_json::Error),
    /// The line is no longer UTF-8.
    #[error(transparent)]
    Utf8(#[from] std::string::FromUtf8Error),
    /// The session has no file.
    #[error("the session has no file to read it from")]
    NoFile,
}

/// Why a line is not an entry.
pub(super) enum LineError {
    /// Not JSON at all.
    Json(serde_json::Error),
    /// JSON, but not an entry.
    Entry(serde_json::Error),
}

/// Parses one line as an entry; a line with lone UTF-16 surrogate escapes
/// (which JavaScript writes, serde_json rejects) is retried with them
/// replaced by U+FFFD. A line that fails as an entry before its end is
/// checked for JSON syntax, so a broken line is reported as such.
pub(super) fn parse_entry(bytes: &[u8]) -> Result<SessionEntry, LineError> {
    let err = match parse_json(bytes) {
        Ok(entry) => return Ok(entry),
        Err(err) => err,
    };
    if let Some(fixed) = replace_lone_surrogates(bytes) {
        return match parse_json(&fixed) {
            Ok(entry) => Ok(entry),
            Err(again) => match classify(&fixed, again) {
                LineError::Json(_) => Err(classify(bytes, err)),
                entry_error @ LineError::Entry(_) => Err(entry_error),
            },
        };
    }
    Err(classify(bytes, err))
}

fn classify(bytes: &[u8], err: serde_json::Error) -> LineError {
    if !err.is_data() {
        return LineError::Json(err);
    }
    match serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
        Ok(_) => LineError::Entry(err),
        Err(syntax) => LineError::Json(syntax),
    }
}

/// The file a session was read from, to read single entries again.
#[derive(Debug)]
pub(super) struct LineSource {
    path: PathBuf,
    /// Opened on first use.
    file: Mutex<Option<Window>>,
}

/// Bytes read ahead from the session file: a pass over consecutive entries
/// (compaction reading a branch) costs one read per window, not two system
/// calls per entry.
#[derive(Debug)]
struct Window {
    file: File,
    /// Offset in the file of `bytes[0]`.
    offset: u64,
    bytes: Vec<u8>,
}

/// How much is read ahead at once.
const WINDOW: usize = 64 * 1024;

impl Window {
    /// Copies the `span` of the file into `out`, from the window when it
    /// holds it, else reading a new window (a line longer than a window is
    /// read on its own).
    fn read(&mut self, span: LineSpan, out: &mut [u8]) -> io::Result<()> {
        let held = span
            .offset
            .checked_sub(self.offset)
            .and_then(|start| usize::try_from(start).ok())
            .and_then(|start| self.bytes.get(start..start.checked_add(span.len)?));
        if let Some(held) = held {
            out.copy_from_slice(held);
            return Ok(());
        }
        if span.len > WINDOW {
            return read_at(&mut self.file, span.offset, out);
        }
        self.bytes.clear();
        self.file.seek(SeekFrom::Start(span.offset))?;
        (&mut self.file)
            .take(WINDOW as u64)
            .read_to_end(&mut self.bytes)?;
        self.offset = span.offset;
        match self.bytes.get(..span.len) {
            Some(held) => {
                out.copy_from_slice(held);
                Ok(())
            }
            None => Err(io::Error::from(io::ErrorKind::UnexpectedEof)),
        }
    }
}

impl LineSource {
    pub(super) fn new(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            file: Mutex::new(None),
        }
    }

    /// Reads from `file` (the session file as locked) from now on, unless
    /// the file was opened already.
    pub(super) fn pin(&self, file: File) {
        let mut window = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        if window.is_none() {
            *window = Some(Window {
                file,
                offset: 0,
                bytes: Vec::with_capacity(WINDOW),
            });
        }
    }

    /// The entry at `span`, parsed as when the file was loaded: a JSON
    /// line this version cannot type is kept verbatim ([`RawEntry`]).
    pub(super) fn read_entry(&self, span: LineSpan) -> Result<SessionEntry, RereadError> {
        let bytes = self.read_bytes(span)?;
        match parse_entry(&bytes) {
            Ok(entry) => Ok(entry),
            Err(LineError::Entry(err)) => raw_entry(&bytes, &err)
                .map(SessionEntry::Raw)
                .ok_or(RereadError::Json(err)),
            Err(LineError::Json(err)) => Err(RereadError::Json(err)),
        }
    }

    /// The text of the line at `span`, as it is in the file.
    pub(super) fn read_line(&self, span: LineSpan) -> Result<String, RereadError> {
        Ok(String::from_utf8(self.read_bytes(span)?)?)
    }

    fn read_bytes(&self, span: LineSpan) -> Result<Vec<u8>, RereadError> {
        let mut bytes = vec![0; span.len];
        let mut file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        let read = match &mut *file {
            Some(window) => window.read(span, &mut bytes),
            None => File::open(&self.path).and_then(|opened| {
                let mut window = Window {
                    file: opened,
                    offset: 0,
                    bytes: Vec::with_capacity(WINDOW),
                };
                window.read(span, &mut bytes)?;
                *file = Some(window);
                Ok(())
            }),
        };
        read.map_err(|source| RereadError::Io {
            path: self.path.clone(),
            source,
        })?;
        Ok(bytes)
    }
}

fn read_at(file: &mut File, offset: u64, bytes: &mut [u8]) -> io::Result<()> {
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(bytes)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// Lines read in any order, longer than the read-ahead window, or
    /// appended after the window was read, come back exactly.
    #[test]
    fn lines_are_read_again_exactly_in_any_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut lines: Vec<String> = (0..3000)
            .map(|i| format!("line {i} {}", "x".repeat(i % 97)))
            .collect();
        lines.insert(1500, "y".repeat(WINDOW * 2 + 3));
        let mut file = File::create(&path).unwrap();
        let mut spans = Vec::new();
        let mut offset = 0u64;
        for line in &lines {
            writeln!(file, "{line}").unwrap();
            spans.push(LineSpan {
                offset,
                len: line.len(),
            });
            offset += line.len() as u64 + 1;
        }
        file.flush().unwrap();
        let source = LineSource::new(&path);
        for (span, line) in spans.iter().zip(&lines) {
            assert_eq!(&source.read_line(*span).unwrap(), line);
        }
        for (span, line) in spans.iter().zip(&lines).rev().step_by(7) {
            assert_eq!(&source.read_line(*span).unwrap(), line);
        }
        // The window now ends at the end of the file: an appended line is read anew.
        let last = *spans.last().unwrap();
        assert_eq!(source.read_line(last).unwrap(), *lines.last().unwrap());
        writeln!(file, "appended").unwrap();
        file.flush().unwrap();
        let appended = LineSpan {
            offset,
            len: "appended".len(),
        };
        assert_eq!(source.read_line(appended).unwrap(), "appended");
        let beyond = LineSpan {
            offset: offset + 100,
            len: 4,
        };
        assert!(source.read_line(beyond).is_err());
    }

    /// An entry parsed through the text reader is the one the byte reader
    /// gives, and a line that is not UTF-8 fails with the byte reader's
    /// error (which says where), as a line that is not JSON.
    #[test]
    fn entries_parse_as_the_byte_reader_parses_them() {
        let line = r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"caf\u00e9 é \"q\""}],"timestamp":1}}"#.as_bytes();
        let typed = parse_entry(line).unwrap_or_else(|_| panic!("entry"));
        let by_bytes: SessionEntry = serde_json::from_slice(line).unwrap();
        assert_eq!(
            serde_json::to_string(&typed).unwrap(),
            serde_json::to_string(&by_bytes).unwrap()
        );

        let mut broken = line.to_vec();
        let at = broken.windows(2).position(|w| w == "é".as_bytes()).unwrap();
        broken[at] = 0xff;
        let expected = serde_json::from_slice::<SessionEntry>(&broken)
            .unwrap_err()
            .to_string();
        match parse_entry(&broken) {
            Err(LineError::Json(err)) => assert_eq!(err.to_string(), expected),
            _ => panic!("a line that is not UTF-8 is not JSON"),
        }
    }
}
