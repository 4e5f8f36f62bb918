//! Describing session files for pickers (`--resume`): one streaming pass per
//! file, nothing kept but a few fields.

use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::SessionError;
use super::paths::{agent_dir, default_session_dir, sessions_dir};

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
    /// Number of `message` entries.
    pub message_count: usize,
    /// Text of the first user message, or `(no messages)`.
    pub first_message: String,
}

fn millis_to_datetime(ms: i64) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp_millis(ms)
}

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

/// Summarizes one session file; `None` when it is not a session file.
pub fn session_info(path: &Path) -> Option<SessionInfo> {
    let file = File::open(path).ok()?;
    let mtime: DateTime<Utc> = file.metadata().and_then(|m| m.modified()).ok()?.into();
    let mut lines = BufReader::with_capacity(1 << 16, file).split(b'\n');
    let header: Value = loop {
        let line = lines.next()?.ok()?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        break serde_json::from_slice(&line).ok()?;
    };
    if header.get("type").and_then(Value::as_str) != Some("session") {
        return None;
    }
    let id = header.get("id").and_then(Value::as_str)?.to_owned();
    let header_time = header
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc));

    let mut info = SessionInfo {
        path: path.to_path_buf(),
        id,
        cwd: header
            .get("cwd")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        name: None,
        parent_session_path: header
            .get("parentSession")
            .and_then(Value::as_str)
            .map(str::to_owned),
        created: header_time.unwrap_or(mtime),
        modified: mtime,
        message_count: 0,
        first_message: String::new(),
    };
    let mut last_activity: Option<i64> = None;
    for line in lines {
        let Ok(line) = line else { break };
        let Ok(entry) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        match entry.get("type").and_then(Value::as_str) {
            Some("session_info") => {
                if let Some(name) = entry.get("name").and_then(Value::as_str)
                    && !name.is_empty()
                {
                    info.name = Some(name.trim().to_owned());
                }
            }
            Some("message") => {
                info.message_count += 1;
                let Some(message) = entry.get("message") else {
                    continue;
                };
                let role = message.get("role").and_then(Value::as_str);
                if !matches!(role, Some("user" | "assistant")) || message.get("content").is_none() {
                    continue;
                }
                let time = message
                    .get("timestamp")
                    .and_then(Value::as_i64)
                    .or_else(|| {
                        entry
                            .get("timestamp")
                            .and_then(Value::as_str)
                            .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
                            .map(|t| t.timestamp_millis())
                    });
                if let Some(time) = time {
                    last_activity = Some(last_activity.map_or(time, |t| t.max(time)));
                }
                if info.first_message.is_empty() && role == Some("user") {
                    info.first_message = message_text(message);
                }
            }
            _ => {}
        }
    }
    info.modified = last_activity
        .filter(|t| *t > 0)
        .and_then(millis_to_datetime)
        .or(header_time)
        .unwrap_or(mtime);
    if info.first_message.is_empty() {
        info.first_message = "(no messages)".to_owned();
    }
    Some(info)
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
    let Ok(file) = File::open(path) else {
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
