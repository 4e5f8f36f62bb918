//! pi's session file: an append-only JSONL tree.
//!
//! The first line is a [`SessionHeader`]; every other line is a
//! [`SessionEntry`] with a short `id` and the `parentId` of the entry it
//! follows, so a file holds a tree of conversations. The *leaf* is the
//! entry the next append hangs under; branching moves it back.
//!
//! [`SessionManager`] owns one session (in a file or in memory);
//! [`load_session_file`] reads any pi file without losing an entry (what
//! it cannot type is kept as a [`RawEntry`]), reporting every skipped line;
//! [`list_sessions`] and [`list_all_sessions`] describe the files of a
//! project or of every project.

pub mod context;
mod entry;
mod horizon;
mod ids;
mod index;
mod lines;
mod list;
mod load;
mod manager;
mod migrate_file;
mod open;
mod outline;
mod paths;
mod queries;
mod raw;
mod split_parse;
mod store;
mod summary;
mod tree;
mod visit;
mod walk;
mod writer;

use std::path::PathBuf;

pub(crate) use context::entry_message;
pub use entry::{
    BranchSummaryEntry, CURRENT_SESSION_VERSION, CompactionEntry, CustomEntry, CustomMessageEntry,
    ENTRY_TYPES, LabelEntry, MessageEntry, ModelChangeEntry, SessionEntry, SessionHeader,
    SessionInfoEntry, ThinkingLevelChangeEntry,
};
pub use ids::{generate_entry_id, new_session_id, now_iso};
pub use list::{SessionInfo, list_all_sessions, list_sessions, list_sessions_in};
pub use load::{DiagnosticKind, LoadDiagnostic, LoadedSession, load_session_file};
pub use manager::{NewSessionOptions, SessionManager};
pub use migrate_file::migrate;
pub use paths::{
    AGENT_DIR_ENV, agent_dir, agent_dir_from, default_session_dir, encode_cwd, session_file_name,
    sessions_dir,
};
pub use raw::RawEntry;
pub(crate) use store::MessageKind;
pub use tree::{SessionTree, TreeNode};
pub use visit::{read_session_header, visit_session_file};
pub use walk::BranchWalk;
pub(crate) use walk::Shape;

/// Errors of the session layer.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// Reading or writing a file failed.
    #[error("session file {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file has no lines at all.
    #[error("session file {path} is empty")]
    EmptyFile {
        /// The file.
        path: PathBuf,
    },
    /// The path names something other than a regular file (a device, a
    /// FIFO, a directory).
    #[error("session file {} is not a regular file ({what})", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is.
        what: &'static str,
    },
    /// The first line is not a `{"type":"session","id":...}` header.
    #[error("session file {path} has no valid session header (line {line})")]
    InvalidHeader {
        /// The file.
        path: PathBuf,
        /// The first non-blank line.
        line: usize,
    },
    /// No entry has this id.
    #[error("Entry {0} not found")]
    EntryNotFound(String),
    /// Summaries are appended as their own entry types, never as messages.
    #[error(
        "a {0} message is appended with its own entry (append_compaction / branch_with_summary), not as a message"
    )]
    SummaryAsMessage(&'static str),
    /// Another process holds the session file's advisory lock.
    #[error(
        "session file {path} is in use by another pi process (one writer per session; --fork {path} continues it in a new file)"
    )]
    Locked {
        /// The file.
        path: PathBuf,
    },
    /// The session file was deleted or replaced while this process wrote
    /// it. Nothing is lost: every entry was written to a new file, where the
    /// session continues.
    #[error(
        "session file {} was {what} while in use; the session continues in {}",
        path.display(),
        continued_in.display()
    )]
    FileLost {
        /// The file that was lost.
        path: PathBuf,
        /// What happened to it.
        what: &'static str,
        /// The new file.
        continued_in: PathBuf,
    },
    /// An entry could not be serialized.
    #[error("cannot serialize a session entry: {0}")]
    Serialize(#[from] serde_json::Error),
}

/// Refuses a session path that names something other than a regular file
/// (reading `/dev/zero` or a FIFO as a session would never end).
pub(crate) fn check_regular(path: &std::path::Path) -> Result<(), SessionError> {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => Err(SessionError::NotAFile {
            path: path.to_path_buf(),
            what: crate::file_read::kind_of(meta.file_type()),
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;

#[cfg(test)]
#[path = "resume_tests.rs"]
mod resume_tests;

#[cfg(test)]
#[path = "migration_tests.rs"]
mod migration_tests;

#[cfg(test)]
#[path = "durability_tests.rs"]
mod durability_tests;
