//! [`SessionWriter`]: the session file as this process writes it. It holds
//! the file's exclusive advisory lock (`flock`), appends whole lines, cuts
//! away what a failed append left before the next one, and notices when
//! the file it holds is no longer the one at its path.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::SessionError;
use super::manager::io_error;

/// Times the lock is taken again when the path's file changes under it
/// (another process migrating it) before giving up as if it were in use.
const LOCK_ATTEMPTS: usize = 8;

/// The session file, locked and open for appending.
#[derive(Debug)]
pub(super) struct SessionWriter {
    file: File,
    /// Device and inode of the file locked.
    identity: (u64, u64),
    /// The file's length before an append that failed: what it left is cut
    /// away before the next one.
    torn_at: Option<u64>,
}

/// How the file at the session's path stopped being the one written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lost {
    /// It was deleted.
    Deleted,
    /// Another file took its place.
    Replaced,
}

impl Lost {
    /// The words for an error message.
    pub(super) fn verb(self) -> &'static str {
        match self {
            Self::Deleted => "deleted",
            Self::Replaced => "replaced by another file",
        }
    }
}

fn identity(meta: &fs::Metadata) -> (u64, u64) {
    (meta.dev(), meta.ino())
}

impl SessionWriter {
    /// Opens (creating it) and locks the session file at `path`, or fails
    /// with [`SessionError::Locked`] when another process holds it. The lock
    /// is on a file that is still at `path` once locked: one that another
    /// process renamed over it meanwhile (a migration) is opened again. A
    /// file system without locks is written unlocked (logged).
    pub(super) fn open_locked(path: &Path) -> Result<Self, SessionError> {
        for _ in 0..LOCK_ATTEMPTS {
            let file = OpenOptions::new()
                .read(true)
                .append(true)
                .create(true)
                .open(path)
                .map_err(io_error(path))?;
            match file.try_lock() {
                Ok(()) => {}
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(SessionError::Locked {
                        path: path.to_path_buf(),
                    });
                }
                Err(fs::TryLockError::Error(e)) => {
                    tracing::warn!(path = %path.display(), "cannot lock the session file: {e}");
                }
            }
            let mine = identity(&file.metadata().map_err(io_error(path))?);
            match fs::metadata(path) {
                Ok(now) if identity(&now) == mine => {
                    return Ok(Self {
                        file,
                        identity: mine,
                        torn_at: None,
                    });
                }
                // Replaced or removed between the open and the lock.
                _ => continue,
            }
        }
        Err(SessionError::Locked {
            path: path.to_path_buf(),
        })
    }

    /// A writer of `file`, already locked by the caller and now at its path
    /// (a migrated file, locked before it was renamed there).
    pub(super) fn from_locked(path: &Path, file: File) -> Result<Self, SessionError> {
        let flags = nix::fcntl::fcntl(&file, nix::fcntl::FcntlArg::F_GETFL).map_err(|e| {
            SessionError::Io {
                path: path.to_path_buf(),
                source: e.into(),
            }
        })?;
        let append = nix::fcntl::OFlag::from_bits_truncate(flags) | nix::fcntl::OFlag::O_APPEND;
        nix::fcntl::fcntl(&file, nix::fcntl::FcntlArg::F_SETFL(append)).map_err(|e| {
            SessionError::Io {
                path: path.to_path_buf(),
                source: e.into(),
            }
        })?;
        let identity = identity(&file.metadata().map_err(io_error(path))?);
        Ok(Self {
            file,
            identity,
            torn_at: None,
        })
    }

    /// A second handle of the locked file, to read entries from.
    pub(super) fn reader(&self) -> io::Result<File> {
        self.file.try_clone()
    }

    /// Whether the file at `path` is still the one locked.
    pub(super) fn check(&self, path: &Path) -> Result<(), Lost> {
        match fs::metadata(path) {
            Ok(now) if identity(&now) == self.identity => Ok(()),
            Ok(_) => Err(Lost::Replaced),
            Err(_) => Err(Lost::Deleted),
        }
    }

    /// Appends `content` (whole lines) in one write. What an earlier failed
    /// append left (a torn line) is cut away first, so this one starts on a
    /// fresh line; when this one fails, its own remains are cut next time.
    pub(super) fn append(&mut self, path: &Path, content: &[u8]) -> Result<(), SessionError> {
        if let Some(len) = self.torn_at {
            self.file.set_len(len).map_err(io_error(path))?;
            self.torn_at = None;
        }
        let before = self.file.metadata().map_err(io_error(path))?.len();
        if let Err(e) = self.file.write_all(content) {
            self.torn_at = Some(before);
            return Err(SessionError::Io {
                path: path.to_path_buf(),
                source: e,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_append_after_a_failed_one_starts_where_the_file_was_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut writer = SessionWriter::open_locked(&path).unwrap();
        writer.append(&path, b"{\"a\":1}\n").unwrap();
        // What a write cut by a full disk leaves: part of a line.
        writer.file.write_all(b"{\"b\":").unwrap();
        writer.torn_at = Some(8);
        writer.append(&path, b"{\"b\":2}\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"a\":1}\n{\"b\":2}\n"
        );
    }
}
