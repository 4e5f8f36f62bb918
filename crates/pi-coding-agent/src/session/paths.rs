//! Where pi keeps sessions: `<agent dir>/sessions/--<encoded cwd>--/<timestamp>_<id>.jsonl`.

use std::path::{Path, PathBuf};

/// Environment variable overriding the agent directory.
pub const AGENT_DIR_ENV: &str = "PI_CODING_AGENT_DIR";

/// The agent directory: `$PI_CODING_AGENT_DIR` (a leading `~` expanded to the
/// home directory) or `~/.pi/agent`.
pub fn agent_dir() -> PathBuf {
    agent_dir_from(
        std::env::var(AGENT_DIR_ENV).ok().as_deref(),
        dirs::home_dir(),
    )
}

/// [`agent_dir`] with the environment value and home directory given.
pub fn agent_dir_from(env_value: Option<&str>, home: Option<PathBuf>) -> PathBuf {
    let home = home.unwrap_or_else(|| PathBuf::from("."));
    match env_value {
        Some(dir) if !dir.is_empty() => {
            if dir == "~" {
                home
            } else if let Some(rest) = dir.strip_prefix("~/") {
                home.join(rest)
            } else {
                PathBuf::from(dir)
            }
        }
        _ => home.join(".pi").join("agent"),
    }
}

/// `<agent dir>/sessions`.
pub fn sessions_dir(agent_dir: &Path) -> PathBuf {
    agent_dir.join("sessions")
}

/// The folder name for a cwd: the leading `/` or `\` dropped, every `/`, `\`
/// and `:` replaced by `-`, wrapped in `--`. `/home/u/work` gives
/// `--home-u-work--`.
pub fn encode_cwd(cwd: &str) -> String {
    let trimmed = cwd
        .strip_prefix('/')
        .or_else(|| cwd.strip_prefix('\\'))
        .unwrap_or(cwd);
    let body: String = trimmed
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':') {
                '-'
            } else {
                c
            }
        })
        .collect();
    format!("--{body}--")
}

/// The default session directory of a cwd under `agent_dir`.
pub fn default_session_dir(agent_dir: &Path, cwd: &str) -> PathBuf {
    sessions_dir(agent_dir).join(encode_cwd(cwd))
}

/// A session file name: the ISO timestamp with `:` and `.` replaced by `-`,
/// then `_<session id>.jsonl`.
pub fn session_file_name(iso_timestamp: &str, session_id: &str) -> String {
    let stamp: String = iso_timestamp
        .chars()
        .map(|c| if matches!(c, ':' | '.') { '-' } else { c })
        .collect();
    format!("{stamp}_{session_id}.jsonl")
}
