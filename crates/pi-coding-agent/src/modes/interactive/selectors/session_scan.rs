//! Matching one session file against a search query without holding it:
//! a raw-byte pre-filter first (every piece of the query that must appear
//! literally in the file, checked on lower-cased 256 KiB chunks), then, for
//! the files it lets through, a line-by-line pass that decodes only the
//! text of user and assistant messages (lines of other roles are skipped
//! by a look at their `"role"`, without parsing) and feeds it to the
//! [`TextMatcher`], stopping as soon as the result is settled.
//!
//! The pre-filter is exact, never a guess: it only rejects a file when
//! the decoded text cannot match. A character can reach the text without
//! its byte in the file only through a `\u` escape or a non-ASCII letter
//! that lower-cases to ASCII (`İ`, the Kelvin sign); a file with any of
//! those is not rejected by it.

use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use memchr::memmem;
use serde::Deserialize;
use serde::de::{self, IgnoredAny, SeqAccess, Visitor};

use super::session_search::{Query, TextMatcher, Token, normalized};

/// Bytes read at a time by the pre-filter.
const CHUNK: usize = 256 * 1024;
/// Bytes of a line looked at to find its role before it is kept.
const ROLE_PREFIX: usize = 2048;

/// What the search needs of a listed session.
#[derive(Debug, Clone)]
pub struct SearchTarget {
    /// The session file.
    pub path: PathBuf,
    /// Session id.
    pub id: String,
    /// Display name (as listed).
    pub name: Option<String>,
    /// Working directory.
    pub cwd: String,
    /// First user message as listed (searched when the file cannot be read).
    pub first_message: String,
}

/// The byte strings a file must contain (ASCII lower-cased) for `query`
/// to match it: each fuzzy token's ASCII characters in order (after the
/// id and name, before the cwd) and each phrase's ASCII fragments.
#[derive(Debug)]
pub struct Prefilter {
    subsequences: Vec<Vec<u8>>,
    fragments: Vec<memmem::Finder<'static>>,
    overlap: usize,
}

/// Pieces of a phrase that appear verbatim in a JSON file when they appear
/// in its text: runs of printable ASCII without `"`, `\` and `/` (which a
/// writer may escape).
fn literal_fragments(phrase: &str) -> impl Iterator<Item = &str> {
    phrase
        .split(|c: char| !c.is_ascii_graphic() || matches!(c, '"' | '\\' | '/'))
        .filter(|f| !f.is_empty())
}

impl Prefilter {
    /// The pre-filter of `query`; `None` when it has nothing to check (a
    /// regex, or tokens without ASCII characters).
    pub fn new(query: &Query) -> Option<Self> {
        let Query::Tokens(tokens) = query else {
            return None;
        };
        let mut subsequences = Vec::new();
        let mut fragments = Vec::new();
        for token in tokens {
            match token {
                Token::Fuzzy(value) => {
                    let lower = value.to_lowercase();
                    let ascii: Vec<u8> = lower.bytes().filter(u8::is_ascii).collect();
                    let letters = ascii.iter().all(|b| b.is_ascii_alphanumeric())
                        && ascii.iter().any(u8::is_ascii_digit)
                        && ascii.iter().any(u8::is_ascii_lowercase);
                    if letters && ascii.len() == lower.len() {
                        // `gpt4` may match as `4gpt`: letters and digits
                        // each in order.
                        let (digits, rest): (Vec<u8>, Vec<u8>) =
                            ascii.iter().partition(|b| b.is_ascii_digit());
                        subsequences.push(digits);
                        subsequences.push(rest);
                    } else if !ascii.is_empty() {
                        subsequences.push(ascii);
                    }
                }
                Token::Phrase(value) => {
                    let phrase = normalized(value);
                    fragments.extend(
                        literal_fragments(&phrase)
                            .map(|f| memmem::Finder::new(f.as_bytes()).into_owned()),
                    );
                }
            }
        }
        if subsequences.is_empty() && fragments.is_empty() {
            return None;
        }
        let overlap = fragments
            .iter()
            .map(|f| f.needle().len())
            .max()
            .unwrap_or(0)
            .max(6);
        Some(Self {
            subsequences,
            fragments,
            overlap,
        })
    }

    /// True when `file` (read from its start) may match `target`.
    fn admits(
        &self,
        target: &SearchTarget,
        file: &mut File,
        cancel: &AtomicBool,
    ) -> io::Result<bool> {
        let mut progress = vec![0usize; self.subsequences.len()];
        let mut found = vec![false; self.fragments.len()];
        let head = format!(
            "{} {} ",
            target.id,
            target.name.as_deref().unwrap_or_default()
        )
        .to_lowercase();
        let tail = format!(" {}", target.cwd).to_lowercase();
        for (f, hit) in self.fragments.iter().zip(found.iter_mut()) {
            *hit = f.find(head.as_bytes()).is_some() || f.find(tail.as_bytes()).is_some();
        }
        self.advance(&mut progress, head.as_bytes());
        let mut unsafe_bytes = false;
        let mut buf = vec![0u8; CHUNK + self.overlap];
        let mut kept = 0;
        loop {
            if self.satisfied(&progress, &found) {
                return Ok(true);
            }
            if cancel.load(Ordering::Relaxed) {
                return Ok(false);
            }
            let n = read_full(file, &mut buf[kept..])?;
            if n == 0 {
                break;
            }
            let window = &mut buf[..kept + n];
            window[kept..].make_ascii_lowercase();
            self.advance(&mut progress, &window[kept..]);
            for (f, hit) in self.fragments.iter().zip(found.iter_mut()) {
                *hit = *hit || f.find(window).is_some();
            }
            unsafe_bytes = unsafe_bytes || has_unsafe_bytes(window);
            let keep = self.overlap.min(window.len());
            let from = window.len() - keep;
            buf.copy_within(from..from + keep, 0);
            kept = keep;
        }
        self.advance(&mut progress, tail.as_bytes());
        Ok(unsafe_bytes || self.satisfied(&progress, &found))
    }

    fn advance(&self, progress: &mut [usize], bytes: &[u8]) {
        for (needle, at) in self.subsequences.iter().zip(progress.iter_mut()) {
            let mut pos = 0;
            while *at < needle.len() {
                match memchr::memchr(needle[*at], &bytes[pos..]) {
                    Some(j) => {
                        pos += j + 1;
                        *at += 1;
                    }
                    None => break,
                }
            }
        }
    }

    fn satisfied(&self, progress: &[usize], found: &[bool]) -> bool {
        found.iter().all(|f| *f)
            && self
                .subsequences
                .iter()
                .zip(progress)
                .all(|(n, at)| *at == n.len())
    }
}

/// Reads until `buf` is full or the file ends; the bytes read.
fn read_full(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// True when lower-cased JSON `bytes` may decode to an ASCII character not
/// present as such: a `\u` escape of printable ASCII, of `İ` or of the
/// Kelvin sign, or those two letters in UTF-8.
fn has_unsafe_bytes(bytes: &[u8]) -> bool {
    let escape = memmem::find_iter(bytes, b"\\u").any(|at| {
        bytes
            .get(at + 2..at + 6)
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u32::from_str_radix(hex, 16).ok())
            .is_some_and(|c| (0x20..0x7f).contains(&c) || c == 0x130 || c == 0x212a)
    });
    escape
        || memmem::find(bytes, "\u{130}".as_bytes()).is_some()
        || memmem::find(bytes, "\u{212a}".as_bytes()).is_some()
}

/// The fields of a session line the search reads; the rest is skipped.
#[derive(Deserialize)]
struct EntryProbe<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Str<'a>>,
    #[serde(borrow)]
    message: Option<MessageProbe<'a>>,
}

#[derive(Deserialize)]
struct MessageProbe<'a> {
    #[serde(borrow)]
    role: Option<Str<'a>>,
    #[serde(borrow)]
    content: Option<ContentText<'a>>,
}

#[derive(Deserialize)]
struct BlockProbe<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Str<'a>>,
    #[serde(borrow)]
    text: Option<Str<'a>>,
}

/// A JSON string, borrowed from the line when it has no escapes.
struct Str<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Str<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V(std::marker::PhantomData))
    }
}

impl Str<'_> {
    fn as_str(&self) -> &str {
        &self.0
    }
}

/// A message's text pieces: the string content, or the text blocks
/// (joined by spaces in the search text); `None` for other content.
struct ContentText<'a>(Option<Vec<Cow<'a, str>>>);

impl<'de: 'a, 'a> Deserialize<'de> for ContentText<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = ContentText<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("message content")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(ContentText(Some(vec![Cow::Borrowed(v)])))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(ContentText(Some(vec![Cow::Owned(v.to_owned())])))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(ContentText(Some(vec![Cow::Owned(v)])))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut texts = Vec::new();
                while let Some(block) = seq.next_element::<BlockProbe<'a>>()? {
                    if block.kind.as_ref().map(Str::as_str) == Some("text") {
                        texts.push(block.text.map(|t| t.0).unwrap_or_default());
                    }
                }
                Ok(ContentText(Some(texts)))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(ContentText(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(ContentText(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(ContentText(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(ContentText(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(ContentText(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(ContentText(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// Whether a line (or its first [`ROLE_PREFIX`] bytes, when `complete` is
/// false) may hold a user or assistant message: its first `"role":"` value,
/// when there is one; a line without `"role"` holds no message.
fn may_hold_text(line: &[u8], complete: bool) -> bool {
    const ROLE: &[u8] = b"\"role\":\"";
    if let Some(at) = memmem::find(line, ROLE) {
        let value = &line[at + ROLE.len()..];
        return match memchr::memchr(b'"', value) {
            Some(end) => matches!(&value[..end], b"user" | b"assistant"),
            None => !complete,
        };
    }
    !complete || memmem::find(line, b"\"role\"").is_some()
}

/// Reads the next line into `line` (without its newline), leaving it empty
/// when its start shows it holds no message text (the rest is skipped
/// unread into memory). `false` at the end of the file.
fn next_line<R: BufRead>(reader: &mut R, line: &mut Vec<u8>) -> io::Result<bool> {
    line.clear();
    let mut keep = None;
    let mut any = false;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            if keep.is_none() && !may_hold_text(line, true) {
                line.clear();
            }
            return Ok(any);
        }
        any = true;
        let (end, done) = match memchr::memchr(b'\n', buf) {
            Some(j) => (j, true),
            None => (buf.len(), false),
        };
        if keep != Some(false) {
            line.extend_from_slice(&buf[..end]);
        }
        reader.consume(if done { end + 1 } else { end });
        if done {
            if keep.is_none() && !may_hold_text(line, true) {
                line.clear();
            }
            return Ok(true);
        }
        if keep.is_none() && line.len() >= ROLE_PREFIX {
            let wanted = may_hold_text(line, false);
            keep = Some(wanted);
            if !wanted {
                line.clear();
            }
        }
    }
}

/// Feeds the text of a user or assistant message `line` to `matcher`;
/// `first` is true until a message with text was fed.
fn feed_line(line: &[u8], matcher: &mut TextMatcher<'_>, first: &mut bool) {
    let Ok(entry) = serde_json::from_slice::<EntryProbe<'_>>(line) else {
        return;
    };
    if entry.kind.as_ref().map(Str::as_str) != Some("message") {
        return;
    }
    let Some(message) = entry.message else {
        return;
    };
    if !matches!(
        message.role.as_ref().map(Str::as_str),
        Some("user" | "assistant")
    ) {
        return;
    }
    let Some(ContentText(Some(pieces))) = message.content else {
        return;
    };
    // pi skips a message whose joined text is empty.
    if pieces.is_empty() || (pieces.len() == 1 && pieces[0].is_empty()) {
        return;
    }
    if !std::mem::take(first) {
        matcher.feed(" ");
    }
    for (n, piece) in pieces.iter().enumerate() {
        if n > 0 {
            matcher.feed(" ");
        }
        matcher.feed(piece);
    }
}

/// The outcome of matching one session.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScanResult {
    /// It matches with this score (lower is better).
    Match(f64),
    /// It does not match.
    NoMatch,
    /// The search was cancelled before the result was known.
    Cancelled,
}

/// Matches `target` (its file read as a stream) against `query`, with the
/// pre-filter of the query when there is one. A file that cannot be read
/// is matched on what the listing knows (id, name, first message, cwd).
pub fn scan_session(
    target: &SearchTarget,
    query: &Query,
    prefilter: Option<&Prefilter>,
    cancel: &AtomicBool,
) -> ScanResult {
    let Some(mut matcher) = TextMatcher::new(query) else {
        return ScanResult::NoMatch;
    };
    matcher.feed(&target.id);
    matcher.feed(" ");
    matcher.feed(target.name.as_deref().unwrap_or_default());
    matcher.feed(" ");
    match scan_file(target, &mut matcher, prefilter, cancel) {
        Ok(Some(())) => {}
        Ok(None) => {
            return if cancel.load(Ordering::Relaxed) {
                ScanResult::Cancelled
            } else {
                ScanResult::NoMatch
            };
        }
        Err(e) => {
            tracing::debug!("session search: {}: {e}", target.path.display());
            if target.first_message != "(no messages)" {
                matcher.feed(&target.first_message);
            }
        }
    }
    if cancel.load(Ordering::Relaxed) {
        return ScanResult::Cancelled;
    }
    matcher.feed(" ");
    matcher.feed(&target.cwd);
    matcher
        .finish()
        .map_or(ScanResult::NoMatch, ScanResult::Match)
}

/// Feeds the messages of `target`'s file; `Ok(None)` when the pre-filter
/// rejected it or the search was cancelled.
fn scan_file(
    target: &SearchTarget,
    matcher: &mut TextMatcher<'_>,
    prefilter: Option<&Prefilter>,
    cancel: &AtomicBool,
) -> io::Result<Option<()>> {
    if matcher.settled() {
        return Ok(Some(()));
    }
    let mut file = crate::file_read::open_regular(&target.path)?;
    if let Some(prefilter) = prefilter {
        if !prefilter.admits(target, &mut file, cancel)? {
            return Ok(None);
        }
        io::Seek::rewind(&mut file)?;
    }
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let mut line = Vec::new();
    let mut first = true;
    while next_line(&mut reader, &mut line)? {
        if cancel.load(Ordering::Relaxed) {
            return Ok(None);
        }
        if !line.is_empty() {
            feed_line(&line, matcher, &mut first);
            if matcher.settled() {
                break;
            }
        }
    }
    Ok(Some(()))
}

#[cfg(test)]
#[path = "session_scan_tests.rs"]
mod tests;
