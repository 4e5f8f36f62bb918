//! Describing session files for pickers (`--resume`): a bounded read per
//! file (the whole of a small file, the head and tail of a large one).

use std::fs;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::SessionError;
use super::paths::{agent_dir, default_session_dir, sessions_dir};
use super::summary::summarize;

/// A session file, summarized.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    /// The file.
    pub path: PathBuf,
    /// Session id from the header.
    pub id: String,
    /// Working directory from the header ("" for old files).
    pub cwd: String,
    /// Display name from the latest named `session_info`.
    pub name: Option<String>,
    /// `parentSession` from the header.
    pub parent_session_path: Option<String>,
    /// Creation time from the header (file mtime when unreadable).
    pub created: DateTime<Utc>,
    /// Latest user/assistant message time; else the header time; else the file mtime.
    pub modified: DateTime<Utc>,
    /// Number of `message` entries (an estimate when not [`Self::exact`]).
    pub message_count: usize,
    /// Text of the first user message, or `(no messages)`.
    pub first_message: String,
    /// True when every line was read; false for a large file summarized
    /// from its head and tail (message count estimated, a name set only in
    /// the middle of the file not seen).
    pub exact: bool,
}

/// Summarizes one session file; `None` when it is not a session file.
///
/// Reads at most a head and a tail window of a large file (see
/// [`super::summary`]); [`SessionInfo::exact`] says whether every line was read.
pub fn session_info(path: &Path) -> Option<SessionInfo> {
    let file = crate::file_read::open_regular(path).ok()?;
    let meta = file.metadata().ok()?;
    let mtime: DateTime<Utc> = meta.modified().ok()?.into();
    let summary = summarize(BufReader::new(file), meta.len()).ok()??;
    let header = &summary.header;
    let id = header.get("id").and_then(Value::as_str)?.to_owned();
    let header_time = header
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc));
    let modified = summary
        .last_activity
        .filter(|t| *t > 0)
        .and_then(DateTime::from_timestamp_millis)
        .or(header_time)
        .unwrap_or(mtime);
    Some(SessionInfo {
        path: path.to_path_buf(),
        id,
        cwd: header
            .get("cwd")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        name: summary.name,
        parent_session_path: header
            .get("parentSession")
            .and_then(Value::as_str)
            .map(str::to_owned),
        created: header_time.unwrap_or(mtime),
        modified,
        message_count: summary.message_count,
        first_message: if summary.first_message.is_empty() {
            "(no messages)".to_owned()
        } else {
            summary.first_message
        },
        exact: summary.exact,
    })
}

fn jsonl_files(dir: &Path) -> Result<Vec<PathBuf>, SessionError> {
    let read = match fs::read_dir(dir) {
        Ok(read) => read,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(SessionError::Io {
                path: dir.to_path_buf(),
                source,
            });
        }
    };
    Ok(read
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect())
}

fn sorted(mut sessions: Vec<SessionInfo>) -> Vec<SessionInfo> {
    sessions.sort_by_key(|s| std::cmp::Reverse(s.modified));
    sessions
}

/// The sessions in one directory, newest first.
pub fn list_sessions_in(dir: &Path) -> Result<Vec<SessionInfo>, SessionError> {
    let files = jsonl_files(dir)?;
    Ok(sorted(
        files.iter().filter_map(|f| session_info(f)).collect(),
    ))
}

/// The sessions of `cwd` (in `session_dir`, default the cwd's folder under
/// the agent directory), newest first.
pub fn list_sessions(
    cwd: &str,
    session_dir: Option<&Path>,
) -> Result<Vec<SessionInfo>, SessionError> {
    let dir = session_dir.map_or_else(|| default_session_dir(&agent_dir(), cwd), Path::to_path_buf);
    list_sessions_in(&dir)
}

/// The sessions of every project under `<agent dir>/sessions` (or
/// `sessions_root` when given), newest first.
pub fn list_all_sessions(sessions_root: Option<&Path>) -> Result<Vec<SessionInfo>, SessionError> {
    let root = sessions_root.map_or_else(|| sessions_dir(&agent_dir()), Path::to_path_buf);
    let read = match fs::read_dir(&root) {
        Ok(read) => read,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(SessionError::Io { path: root, source }),
    };
    let mut sessions = Vec::new();
    for dir in read
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
    {
        sessions.extend(jsonl_files(&dir)?.iter().filter_map(|f| session_info(f)));
    }
    Ok(sorted(sessions))
}

/// True when the first line of `path` (read from its first 512 bytes, as pi
/// does) is a session header.
fn is_valid_session_file(path: &Path) -> bool {
    let Ok(file) = crate::file_read::open_regular(path) else {
        return false;
    };
    let mut head = Vec::with_capacity(512);
    if file.take(512).read_to_end(&mut head).is_err() {
        return false;
    }
    let first = head.split(|b| *b == b'\n').next().unwrap_or_default();
    serde_json::from_slice::<Value>(first).is_ok_and(|h| {
        h.get("type").and_then(Value::as_str) == Some("session")
            && h.get("id").is_some_and(Value::is_string)
    })
}

/// The most recently modified (file mtime) valid session file in `dir`.
pub(crate) fn find_most_recent_session(dir: &Path) -> Option<PathBuf> {
    jsonl_files(dir)
        .ok()?
        .into_iter()
        .filter(|p| is_valid_session_file(p))
        .filter_map(|p| {
            let mtime = fs::metadata(&p).and_then(|m| m.modified()).ok()?;
            Some((mtime, p))
        })
        .max_by_key(|(mtime, _)| *mtime)
        .map(|(_, p)| p)
}
