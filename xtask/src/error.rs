//! The errors of the xtask commands (printed after the command's name).

use std::path::{Path, PathBuf};

/// Why a command (or one of its steps) failed.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// A program could not be started.
    #[error("cannot run {program}: {source}")]
    Spawn {
        /// The program (and what it was for).
        program: String,
        /// Why it did not start.
        source: std::io::Error,
    },
    /// A file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    File {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The command's arguments are wrong (its usage).
    #[error("usage: {0}")]
    Usage(&'static str),
    /// A program ran and failed, or a step found a wrong state (the text says which).
    #[error("{0}")]
    Failed(String),
    /// Data (a JSON document, a program's output, a fixture) is not what it must be.
    #[error("{0}")]
    Invalid(String),
}

impl TaskError {
    /// The error of a program that could not be started (for `map_err`).
    pub fn spawn(program: impl Into<String>) -> impl FnOnce(std::io::Error) -> Self {
        let program = program.into();
        move |source| Self::Spawn { program, source }
    }

    /// The error of a file operation on `path` (for `map_err`).
    pub fn file(path: &Path) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.to_path_buf();
        move |source| Self::File { path, source }
    }
}
