//! Where a resume's context starts in a session file: the *horizon*.
//!
//! A compaction summarizes every entry of its branch before its
//! `firstKeptEntryId`; a context that goes through it sends the summary and
//! the entries from that one on. Before parsing a file, a resume looks for
//! its last compaction (a byte search, while the lines are counted), reads
//! that line, and finds the line of its first kept entry, searching back
//! from the compaction. The message entries before that line are read as
//! outlines ([`super::outline`]) instead of whole: the resume's work and
//! memory then follow the context, not the file.
//!
//! This is a guess about the context, never a decision: the last
//! compaction of the file is the one on the path of its last entry (the
//! leaf of a resume) unless the session was branched back behind it. An
//! outlined entry that a context or a view needs is read again from its
//! line, so a wrong guess costs time, never an entry.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use memchr::memmem;

use super::entry::SessionEntry;
use super::lines::parse_entry;

/// How a compaction entry's line starts its `type` field, as pi and pi-rs
/// write it. Inside a JSON string a quote is escaped, so these bytes are
/// always a key and its value; a nested object with the same pair is
/// possible and is ruled out by parsing the line.
const COMPACTION: &[u8] = br#""type":"compaction""#;

/// How much is read at a time when searching back.
const WINDOW: usize = 64 * 1024;

/// What one pass over a session file's bytes finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FileScan {
    /// Its lines (a last line without a newline counts).
    pub(super) lines: usize,
    /// Where the last [`COMPACTION`] match is.
    pub(super) last_compaction: Option<u64>,
}

/// Counts the lines of the file at `path` (what a reader sizes its lists
/// by) and finds its last compaction.
pub(super) fn scan_file(path: &Path) -> io::Result<FileScan> {
    let mut file = File::open(path)?;
    let mut buffer = vec![0; 1 << 16];
    let finder = memmem::Finder::new(COMPACTION);
    // The last bytes of the previous read, for a match across two reads.
    let mut carry: Vec<u8> = Vec::with_capacity(2 * COMPACTION.len());
    let mut offset = 0u64;
    let mut scan = FileScan {
        lines: 0,
        last_compaction: None,
    };
    let mut open_line = false;
    loop {
        let read = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let chunk = buffer.get(..read).unwrap_or_default();
        scan.lines += memchr::memchr_iter(b'\n', chunk).count();
        open_line = chunk.last() != Some(&b'\n');

        let head = chunk.get(..COMPACTION.len() - 1).unwrap_or(chunk);
        let carried = carry.len() as u64;
        carry.extend_from_slice(head);
        if let Some(at) = finder.find_iter(&carry).last() {
            scan.last_compaction = Some(offset - carried + at as u64);
        }
        if let Some(at) = finder.find_iter(chunk).last() {
            scan.last_compaction = Some(offset + at as u64);
        }
        let tail = chunk.len().saturating_sub(COMPACTION.len() - 1);
        carry.clear();
        carry.extend_from_slice(chunk.get(tail..).unwrap_or_default());
        offset += read as u64;
    }
    scan.lines += usize::from(open_line);
    Ok(scan)
}

/// The offset of the line of the first entry the file's last compaction
/// keeps (`compaction_at`: where [`scan_file`] found it); `None` when that
/// match is not a compaction entry or its first kept entry is not found
/// before it.
pub(super) fn find_horizon(path: &Path, compaction_at: u64) -> io::Result<Option<u64>> {
    let mut file = File::open(path)?;
    let start = line_start(&mut file, compaction_at)?;
    let line = read_line(&mut file, start)?;
    let Ok(SessionEntry::Compaction(compaction)) = parse_entry(line.trim_ascii()) else {
        return Ok(None);
    };
    let mut pattern = br#""id":"#.to_vec();
    serde_json::to_writer(&mut pattern, &compaction.first_kept_entry_id)
        .map_err(io::Error::other)?;
    match rfind_before(&mut file, &pattern, start)? {
        Some(at) => line_start(&mut file, at).map(Some),
        None => Ok(None),
    }
}

/// The offset of the start of the line holding `offset`.
fn line_start(file: &mut File, offset: u64) -> io::Result<u64> {
    let mut end = offset;
    let mut buffer = Vec::new();
    while end > 0 {
        let from = end.saturating_sub(WINDOW as u64);
        read_range(file, from, end, &mut buffer)?;
        if let Some(at) = memchr::memrchr(b'\n', &buffer) {
            return Ok(from + at as u64 + 1);
        }
        end = from;
    }
    Ok(0)
}

/// The line starting at `start`, without its newline.
fn read_line(file: &mut File, start: u64) -> io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(start))?;
    let mut line = Vec::new();
    BufReader::new(file).read_until(b'\n', &mut line)?;
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    Ok(line)
}

/// The offset of the last match of `pattern` that ends at or before `end`.
fn rfind_before(file: &mut File, pattern: &[u8], end: u64) -> io::Result<Option<u64>> {
    if pattern.len() > WINDOW / 2 {
        // No entry id is this long; and the windows must overlap by less
        // than their size.
        return Ok(None);
    }
    let finder = memmem::FinderRev::new(pattern);
    let overlap = pattern.len().saturating_sub(1) as u64;
    let mut window_end = end;
    let mut buffer = Vec::new();
    loop {
        let from = window_end.saturating_sub(WINDOW as u64);
        read_range(file, from, window_end, &mut buffer)?;
        if let Some(at) = finder.rfind(&buffer) {
            return Ok(Some(from + at as u64));
        }
        if from == 0 {
            return Ok(None);
        }
        // The next window overlaps this one by a pattern's length less one.
        window_end = (from + overlap).min(window_end);
    }
}

/// Reads `from..to` of `file` into `buffer`.
fn read_range(file: &mut File, from: u64, to: u64, buffer: &mut Vec<u8>) -> io::Result<()> {
    let len = usize::try_from(to.saturating_sub(from)).map_err(io::Error::other)?;
    buffer.clear();
    buffer.resize(len, 0);
    file.seek(SeekFrom::Start(from))?;
    file.read_exact(buffer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compaction(id: &str, kept: &str) -> String {
        format!(
            r#"{{"type":"compaction","id":"{id}","parentId":null,"timestamp":"t","summary":"s","firstKeptEntryId":"{kept}","tokensBefore":1}}"#
        )
    }

    fn message(id: &str, text: &str) -> String {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":null,"timestamp":"t","message":{{"role":"user","content":"{text}","timestamp":1}}}}"#
        )
    }

    fn write(lines: &[String], newline_at_end: bool) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut text = lines.join("\n");
        if newline_at_end {
            text.push('\n');
        }
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    fn offset_of(lines: &[String], index: usize) -> u64 {
        lines[..index].iter().map(|l| l.len() as u64 + 1).sum()
    }

    #[test]
    fn lines_are_counted_with_or_without_a_last_newline() {
        let long = "x".repeat(70_000);
        for (text, lines) in [
            (String::new(), 0),
            ("a\n".to_owned(), 1),
            ("a\nb".to_owned(), 2),
            ("\n\n".to_owned(), 2),
            // Lines across the 64 KiB reads.
            (format!("{long}\n{long}\n{long}"), 3),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("s.jsonl");
            std::fs::write(&path, &text).unwrap();
            assert_eq!(scan_file(&path).unwrap().lines, lines, "{}", text.len());
        }
        let dir = tempfile::tempdir().unwrap();
        assert!(scan_file(&dir.path().join("missing.jsonl")).is_err());
    }

    /// The last compaction is found wherever the reads cut it, and its
    /// first kept entry's line is the horizon, however far back.
    #[test]
    fn the_horizon_is_the_line_of_the_last_compactions_first_kept_entry() {
        for pad in [0, 1, 7, 100, 65_530, 65_536 - 10, 200_000] {
            let mut lines = vec![r#"{"type":"session","version":3,"id":"s"}"#.to_owned()];
            lines.push(message("k0", &"a".repeat(pad)));
            lines.push(compaction("c0", "k0"));
            lines.push(message("k1", "kept"));
            for i in 0..50 {
                lines.push(message(&format!("m{i}"), &"b".repeat(pad / 10 + i)));
            }
            lines.push(compaction("c1", "k1"));
            lines.push(message("after", "c"));
            let (_dir, path) = write(&lines, pad % 2 == 0);
            let scan = scan_file(&path).unwrap();
            assert_eq!(scan.lines, lines.len());
            let at = scan.last_compaction.unwrap();
            assert_eq!(at, offset_of(&lines, 54) + 1, "pad {pad}");
            assert_eq!(
                find_horizon(&path, at).unwrap(),
                Some(offset_of(&lines, 3)),
                "pad {pad}"
            );
        }
    }

    #[test]
    fn no_horizon_without_a_compaction_entry_or_its_kept_entry() {
        let header = r#"{"type":"session","version":3,"id":"s"}"#.to_owned();
        // No compaction at all.
        let lines = [header.clone(), message("a", "x")];
        let (_dir, path) = write(&lines, true);
        assert_eq!(scan_file(&path).unwrap().last_compaction, None);
        // The pair inside another entry (a custom entry's data).
        let lines = [
            header.clone(),
            message("a", "x"),
            r#"{"type":"custom","id":"b","parentId":"a","timestamp":"t","customType":"x","data":{"type":"compaction","firstKeptEntryId":"a"}}"#.to_owned(),
        ];
        let (_dir, path) = write(&lines, true);
        let at = scan_file(&path).unwrap().last_compaction.unwrap();
        assert_eq!(find_horizon(&path, at).unwrap(), None);
        // A compaction whose first kept entry is not in the file.
        let lines = [header, message("a", "x"), compaction("c", "gone")];
        let (_dir, path) = write(&lines, false);
        let at = scan_file(&path).unwrap().last_compaction.unwrap();
        assert_eq!(find_horizon(&path, at).unwrap(), None);
    }
}
