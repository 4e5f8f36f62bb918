//! The user documentation shipped inside the binary (the README and
//! `docs/*.md`, embedded at build time) and written out where the model's
//! `read` tool can reach it, so the agent can answer "how do I ...?" about
//! pi-rs itself. `cargo install` has no data folder, so the files go to
//! `<agent dir>/pi-rs-docs/` on first use and are replaced when the
//! embedded set changes (a new version): built in a folder beside it and
//! renamed into place, so a reader never sees half a set. The folder is
//! pi-rs's own; edits to it are overwritten.

use std::io;
use std::path::{Path, PathBuf};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/user_docs_files.rs"));
}

/// The folder's name inside the agent dir.
pub const DOCS_FOLDER: &str = "pi-rs-docs";

/// The file in the folder naming the set it holds.
const STAMP: &str = ".fingerprint";

/// Why the documentation could not be written out.
#[derive(Debug, thiserror::Error)]
pub enum UserDocsError {
    /// This binary was built without its documentation.
    #[error("this pi-rs was built without its documentation")]
    NotEmbedded,
    /// Writing the folder failed.
    #[error("cannot write the documentation to {path}: {source}")]
    Write {
        /// The folder or file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
}

/// The embedded files as (path inside the folder, text), sorted by path.
pub fn files() -> &'static [(&'static str, &'static str)] {
    embedded::FILES
}

/// The folder holding the current documentation under `agent_dir`, written
/// first when it is missing or holds another set. Blocking: a start-up
/// with the folder current reads one small file.
pub fn ensure(agent_dir: &Path) -> Result<PathBuf, UserDocsError> {
    if embedded::FILES.is_empty() {
        return Err(UserDocsError::NotEmbedded);
    }
    let dir = agent_dir.join(DOCS_FOLDER);
    if is_current(&dir) {
        return Ok(dir);
    }
    let write = |path: &Path| {
        let path = path.to_owned();
        move |source| UserDocsError::Write { path, source }
    };
    std::fs::create_dir_all(agent_dir).map_err(write(agent_dir))?;
    let staging = tempfile::Builder::new()
        .prefix(".pi-rs-docs-")
        .tempdir_in(agent_dir)
        .map_err(write(agent_dir))?;
    for (name, text) in embedded::FILES {
        let path = staging.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(write(parent))?;
        }
        std::fs::write(&path, text).map_err(write(&path))?;
    }
    let stamp = staging.path().join(STAMP);
    std::fs::write(&stamp, embedded::FINGERPRINT).map_err(write(&stamp))?;
    replace_dir(staging, &dir)?;
    tracing::debug!("wrote the documentation to {}", dir.display());
    Ok(dir)
}

/// True when `dir` holds the embedded set (its stamp read bounded and only
/// from a regular file: a FIFO there must not hang the start-up).
fn is_current(dir: &Path) -> bool {
    crate::file_read::read_regular_to_string(dir.join(STAMP), 64)
        .is_ok_and(|s| s == embedded::FINGERPRINT)
}

/// Moves the staged folder to `dir`, the previous set (if any) moved aside
/// first and removed after.
fn replace_dir(staging: tempfile::TempDir, dir: &Path) -> Result<(), UserDocsError> {
    let parent = dir.parent().unwrap_or(Path::new("."));
    let old = if dir.exists() {
        let aside = tempfile::Builder::new()
            .prefix(".pi-rs-docs-old-")
            .tempdir_in(parent)
            .map_err(|source| UserDocsError::Write {
                path: parent.to_owned(),
                source,
            })?;
        let target = aside.path().join("docs");
        match std::fs::rename(dir, &target) {
            Ok(()) => Some(aside),
            // Another pi moved it meanwhile.
            Err(_) if !dir.exists() => None,
            Err(source) => {
                return Err(UserDocsError::Write {
                    path: dir.to_owned(),
                    source,
                });
            }
        }
    } else {
        None
    };
    let staged = staging.keep();
    let moved = std::fs::rename(&staged, dir);
    if let Some(aside) = &old
        && moved.is_err()
        && !dir.exists()
    {
        // Put the previous set back rather than leave none.
        let _ = std::fs::rename(aside.path().join("docs"), dir);
    }
    drop(old);
    match moved {
        Ok(()) => Ok(()),
        // Another pi put the same set in place meanwhile.
        Err(_) if is_current(dir) => {
            let _ = std::fs::remove_dir_all(&staged);
            Ok(())
        }
        Err(source) => {
            let _ = std::fs::remove_dir_all(&staged);
            Err(UserDocsError::Write {
                path: dir.to_owned(),
                source,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readme_and_the_docs_are_embedded() {
        let names: Vec<&str> = files().iter().map(|(n, _)| *n).collect();
        assert!(names.contains(&"README.md"), "{names:?}");
        assert!(names.contains(&"docs/interactive.md"), "{names:?}");
        assert!(names.contains(&"docs/extensions.md"), "{names:?}");
        let readme = files().iter().find(|(n, _)| *n == "README.md").map(|f| f.1);
        assert!(readme.is_some_and(|r| r.starts_with("# pi-rs")));
    }

    #[test]
    fn the_folder_is_written_once_and_replaced_when_it_holds_another_set() {
        let agent = tempfile::tempdir().unwrap();
        let dir = ensure(agent.path()).unwrap();
        assert_eq!(dir, agent.path().join(DOCS_FOLDER));
        for (name, text) in files() {
            assert_eq!(std::fs::read_to_string(dir.join(name)).unwrap(), *text);
        }
        // Current: nothing is written again.
        std::fs::write(dir.join("note.txt"), "kept while current").unwrap();
        ensure(agent.path()).unwrap();
        assert!(dir.join("note.txt").exists());
        // An older set (another fingerprint) is replaced whole.
        std::fs::write(dir.join(STAMP), "0000").unwrap();
        std::fs::write(dir.join("README.md"), "old").unwrap();
        ensure(agent.path()).unwrap();
        assert!(!dir.join("note.txt").exists());
        assert!(
            std::fs::read_to_string(dir.join("README.md"))
                .unwrap()
                .starts_with("# pi-rs")
        );
        // Nothing staged or set aside is left behind.
        let left: Vec<_> = std::fs::read_dir(agent.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, [std::ffi::OsString::from(DOCS_FOLDER)]);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_as_the_stamp_does_not_hang_and_is_replaced() {
        let agent = tempfile::tempdir().unwrap();
        let dir = agent.path().join(DOCS_FOLDER);
        std::fs::create_dir(&dir).unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(dir.join(STAMP))
            .status()
            .unwrap();
        assert!(status.success());
        ensure(agent.path()).unwrap();
        assert!(is_current(&dir));
    }

    #[test]
    fn an_unwritable_agent_dir_is_an_error_naming_it() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("not-a-dir");
        std::fs::write(&file, "x").unwrap();
        let err = ensure(&file).unwrap_err();
        assert!(err.to_string().contains("not-a-dir"), "{err}");
    }
}
