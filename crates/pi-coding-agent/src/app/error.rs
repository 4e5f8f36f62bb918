//! Why an operation of the running app failed. The messages are what the
//! user reads (rpc `error`, the interactive mode's notices, stderr), in
//! pi's wording where pi has one.

use std::path::PathBuf;
use std::sync::Arc;

use pi_agent_core::ToolError;

use crate::compaction::CompactionError;
use crate::session::SessionError;

/// A failed app operation (session switch, fork, export, compaction, ...).
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The session file could not be read, written or locked.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// A compaction was refused or failed.
    #[error(transparent)]
    Compaction(#[from] CompactionError),
    /// A run an extension started could not start.
    #[error("{0}")]
    Prompt(String),
    /// The session cannot change while the agent runs.
    #[error("Cannot change the session while the agent is running")]
    Streaming,
    /// A switch to a file in a directory that does not exist.
    #[error("Cannot switch session: directory {} does not exist", .0.display())]
    MissingSessionDir(PathBuf),
    /// The opened session's working directory is gone (pi's full message).
    #[error("{0}")]
    MissingSessionCwd(String),
    /// A fork at anything but a known user message (pi's wording).
    #[error("Invalid entry ID for forking")]
    InvalidForkEntry,
    /// A clone of a session with no current entry.
    #[error("Cannot clone session: no current entry selected")]
    NoCurrentEntry,
    /// A clone before the session file holds its leaf (pi forks from the file).
    #[error("Entry {0} not found")]
    EntryNotFound(String),
    /// An HTML export of a session that has no file.
    #[error("Cannot export in-memory session to HTML")]
    InMemoryExport,
    /// An HTML export before anything was written.
    #[error("Nothing to export yet - start a conversation first")]
    NothingToExport,
    /// `/share` failed (pi's wording).
    #[error(transparent)]
    Share(#[from] crate::export::share::ShareError),
    /// The HTML export is built with the `cli` feature only (its theme
    /// colours and highlighting are pi-tui's).
    #[error("the HTML export needs pi-coding-agent's `cli` feature")]
    ExportUnavailable,
    /// A file named by the user does not exist (pi's wording).
    #[error("File not found: {}", .0.display())]
    FileNotFound(PathBuf),
    /// A file could not be read (pi's wording).
    #[error("Could not read file {}: {source}", path.display())]
    ReadFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file could not be written.
    #[error("{}: {source}", path.display())]
    WriteFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The `shellPath` setting names no file (pi's wording).
    #[error("Custom shell path not found: {0}")]
    ShellNotFound(String),
    /// A user shell command failed while running.
    #[error(transparent)]
    ShellRun(#[from] ToolError),
    /// A value could not be turned into JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// A settled message that could not be saved to the session file (kept
/// until taken, and shared with every listener, hence cloneable).
#[derive(Debug, Clone, thiserror::Error)]
#[error("Cannot save the session: {0}")]
pub struct SaveError(pub Arc<SessionError>);
