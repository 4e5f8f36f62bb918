//! A pass over a session file that keeps nothing: every entry, migrated to
//! the current version, handed to a visitor in file order and dropped
//! after it. What an export of a long session streams from.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use super::SessionError;
use super::entry::{SessionEntry, SessionHeader};
use super::lines::LineReader;
use super::load::{parse_header, parse_line, read_session_file};

/// The header of the session file at `path` (its first non-blank line).
pub fn read_session_header(path: &Path) -> Result<SessionHeader, SessionError> {
    let io = |source| SessionError::Io {
        path: path.to_path_buf(),
        source,
    };
    super::check_regular(path)?;
    let file = File::open(path).map_err(io)?;
    let mut reader = LineReader::new(BufReader::with_capacity(1 << 14, file));
    let mut text = Vec::new();
    let Some(line) = reader.next_into(&mut text).map_err(io)? else {
        return Err(SessionError::EmptyFile {
            path: path.to_path_buf(),
        });
    };
    parse_line(&text[line.range.clone()])
        .ok()
        .and_then(|(value, _)| parse_header(value))
        .ok_or_else(|| SessionError::InvalidHeader {
            path: path.to_path_buf(),
            line: line.number,
        })
}

/// Visits every entry of the session file at `path` in file order, one at
/// a time (an old-format file is migrated first, in memory: such files
/// are small). Lines that are not entries are skipped, as a load skips
/// them. Returns the header.
pub fn visit_session_file(
    path: &Path,
    mut visit: impl FnMut(SessionEntry),
) -> Result<SessionHeader, SessionError> {
    let read = read_session_file(path, false, 0, None, &mut |entry, _| visit(entry))?;
    Ok(read.header)
}
