//! Old session files (versions 1 and 2) brought to version 3 as pi's
//! migrations do ([`migrate`], [`Migrator`]), and rewritten where they are
//! ([`migrate_in_place`]): under the session lock, taken before the file is
//! read, streamed line by line into a temporary file that is locked before
//! it is renamed over the old one, so that two processes opening one old
//! file never both migrate it, and memory stays bounded by a line.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::Path;

use serde_json::Value;

use super::SessionError;
use super::entry::CURRENT_SESSION_VERSION;
use super::ids::generate_entry_id;
use super::lines::LineReader;
use super::load::{parse_header, parse_line};
use super::writer::SessionWriter;
use crate::file_replace::{ReplaceOptions, replace_file_with};

/// Brings version 1 and 2 entries (as raw JSON, in file order) to version 3,
/// as pi's migrations do:
/// - v1 -> v2: every entry gets a fresh short `id` and the previous entry's
///   id as `parentId` (a linear chain); a compaction's `firstKeptEntryIndex`
///   (an index into the file's parsed lines, header included) becomes
///   `firstKeptEntryId`.
/// - v2 -> v3: the message role `hookMessage` is renamed to `custom`.
pub fn migrate(entries: &mut [(usize, Value)], from_version: u32) {
    let mut migrator = Migrator::new(from_version);
    for (_, value) in entries.iter_mut() {
        migrator.entry(value);
    }
}

/// [`migrate`] one entry at a time, in file order.
#[derive(Debug)]
pub(super) struct Migrator {
    from_version: u32,
    /// The ids given so far (v1), in order.
    ids: Vec<String>,
    taken: HashSet<String>,
}

impl Migrator {
    /// A migrator of the entries of a file of version `from_version`.
    pub(super) fn new(from_version: u32) -> Self {
        Self {
            from_version,
            ids: Vec::new(),
            taken: HashSet::new(),
        }
    }

    /// Migrates the next entry.
    pub(super) fn entry(&mut self, value: &mut Value) {
        if self.from_version < 2 {
            self.give_id(value);
        }
        if self.from_version < 3
            && value.get("type").and_then(Value::as_str) == Some("message")
            && let Some(message) = value.get_mut("message").and_then(Value::as_object_mut)
            && message.get("role").and_then(Value::as_str) == Some("hookMessage")
        {
            message.insert("role".into(), Value::String("custom".into()));
        }
    }

    fn give_id(&mut self, value: &mut Value) {
        let id = generate_entry_id(|candidate| self.taken.contains(candidate));
        self.taken.insert(id.clone());
        let prev = self.ids.last().cloned();
        self.ids.push(id.clone());
        let Value::Object(map) = value else {
            return;
        };
        map.insert("id".into(), Value::String(id));
        map.insert("parentId".into(), prev.map_or(Value::Null, Value::String));
        if map.get("type").and_then(Value::as_str) == Some("compaction")
            && let Some(index) = map.get("firstKeptEntryIndex").and_then(Value::as_u64)
        {
            // Index 0 is the header, so entry `k` of the file is ids[k - 1].
            let target = usize::try_from(index)
                .ok()
                .and_then(|i| i.checked_sub(1))
                .and_then(|i| self.ids.get(i));
            if let Some(target) = target {
                map.insert("firstKeptEntryId".into(), Value::String(target.clone()));
            }
            map.shift_remove("firstKeptEntryIndex");
        }
    }
}

/// What [`migrate_in_place`] did.
#[derive(Debug)]
pub(super) enum Migration {
    /// The file is current (or not a session file at all: the caller's read
    /// says so); when the lock was taken to find out, its writer.
    Current(Option<SessionWriter>),
    /// The file was rewritten in the current version; the writer holds the
    /// new file's lock.
    Rewritten(SessionWriter),
    /// The file is old and was left untouched, for the reason given.
    Refused(String),
}

/// Why a streamed migration stopped without writing.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Refusal(String);

/// Rewrites an old session file at `path` in the current version, under
/// its lock (`held`, when the caller has taken it; else taken here:
/// [`SessionError::Locked`] when another process holds it).
/// Every line keeps its place: entries are migrated, lines that are not
/// JSON are kept byte for byte. A file with lines this version cannot write
/// back unchanged, or that cannot be rewritten (a full disk), is left as it
/// is ([`Migration::Refused`]).
pub(super) fn migrate_in_place(
    path: &Path,
    held: Option<SessionWriter>,
) -> Result<Migration, SessionError> {
    if header_version(path).is_none_or(|v| v >= CURRENT_SESSION_VERSION) {
        return Ok(Migration::Current(held));
    }
    let writer = match held {
        Some(writer) => writer,
        None => SessionWriter::open_locked(path)?,
    };
    // Another process may have migrated it before the lock was ours.
    let version = match header_version(path) {
        Some(version) if version < CURRENT_SESSION_VERSION => version,
        _ => return Ok(Migration::Current(Some(writer))),
    };
    let options = ReplaceOptions {
        lock: true,
        ..ReplaceOptions::USER_FILE
    };
    match replace_file_with(path, options, |out| write_migrated(path, version, out)) {
        Ok(replaced) => {
            tracing::info!(
                path = %path.display(),
                "migrated the session file from version {version} to {CURRENT_SESSION_VERSION}"
            );
            drop(writer);
            Ok(Migration::Rewritten(SessionWriter::from_locked(
                path,
                replaced.file,
            )?))
        }
        Err(err) => {
            let reason = match err
                .source
                .get_ref()
                .and_then(|e| e.downcast_ref::<Refusal>())
            {
                Some(refusal) => refusal.0.clone(),
                None => format!("rewriting it failed: {err}"),
            };
            Ok(Migration::Refused(reason))
        }
    }
}

/// The version in the header of the session file at `path`; `None` when it
/// cannot be read or has no header.
fn header_version(path: &Path) -> Option<u32> {
    let file = File::open(path).ok()?;
    let mut reader = LineReader::new(BufReader::with_capacity(1 << 12, file));
    let mut text = Vec::new();
    while let Some(line) = reader.next_into(&mut text).ok()? {
        if let Ok((value, _)) = parse_line(&text[line.range.clone()]) {
            return parse_header(value).map(|h| h.version.unwrap_or(1));
        }
        text.clear();
    }
    None
}

/// Writes the file at `path` (of version `version`) migrated, line by line.
fn write_migrated(path: &Path, version: u32, out: &mut dyn Write) -> io::Result<()> {
    let file = File::open(path)?;
    let mut reader = LineReader::new(BufReader::with_capacity(1 << 16, file));
    let mut text = Vec::new();
    let mut migrator = Migrator::new(version);
    let mut header_seen = false;
    while let Some(line) = reader.next_into(&mut text)? {
        let bytes = &text[line.range.clone()];
        match parse_line(bytes) {
            Ok((_, true)) => {
                return Err(io::Error::other(Refusal(format!(
                    "line {} holds lone UTF-16 surrogate escapes that this version cannot write back unchanged",
                    line.number
                ))));
            }
            Ok((mut value, false)) => {
                if header_seen {
                    migrator.entry(&mut value);
                } else if let Value::Object(map) = &mut value {
                    // As pi's migration sets it: a new key goes last.
                    map.insert("version".into(), CURRENT_SESSION_VERSION.into());
                }
                header_seen = true;
                serde_json::to_writer(&mut *out, &value)?;
            }
            Err(_) => out.write_all(bytes)?,
        }
        out.write_all(b"\n")?;
        text.clear();
    }
    Ok(())
}
