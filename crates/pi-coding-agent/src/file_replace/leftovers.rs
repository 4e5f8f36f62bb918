//! The temporary files of a replacement: named after the file they replace
//! and the process writing them (`.<name>.pi-tmp-<pid>-<random>`), so that
//! one a killed process left behind is recognized and removed the next
//! time the same file is written, while another live process's is kept.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

use nix::errno::Errno;
use nix::unistd::Pid;

/// What marks a temporary file of ours, after the file's name.
const MARK: &[u8] = b".pi-tmp-";

/// Bytes of the file's name kept in a temporary file's name, so that the
/// name stays within the 255 bytes a file name may have.
const NAME_BYTES: usize = 200;

/// The start of this process's temporary files for `name`.
pub(super) fn temp_prefix(name: &OsStr) -> OsString {
    let mut prefix = stem(name);
    prefix.extend_from_slice(std::process::id().to_string().as_bytes());
    prefix.push(b'-');
    OsString::from_vec(prefix)
}

/// `.<name>.pi-tmp-`, the name cut to [`NAME_BYTES`].
fn stem(name: &OsStr) -> Vec<u8> {
    let bytes = name.as_bytes();
    let kept = &bytes[..bytes.len().min(NAME_BYTES)];
    let mut stem = Vec::with_capacity(kept.len() + MARK.len() + 20);
    stem.push(b'.');
    stem.extend_from_slice(kept);
    stem.extend_from_slice(MARK);
    stem
}

/// Removes the temporary files for `name` in `dir` whose process is gone.
/// Best effort: what cannot be read or removed is left (and logged).
pub(super) fn remove_stale(dir: &Path, name: &OsStr) {
    let stem = stem(name);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name.as_bytes().strip_prefix(stem.as_slice()) else {
            continue;
        };
        let Some(pid) = writer_pid(rest) else {
            continue;
        };
        if process_is_alive(pid) {
            continue;
        }
        let path = entry.path();
        match std::fs::remove_file(&path) {
            Ok(()) => {
                tracing::info!(path = %path.display(), "removed a temporary file left by a killed process")
            }
            Err(e) => {
                tracing::warn!(path = %path.display(), "cannot remove a stale temporary file: {e}")
            }
        }
    }
}

/// The pid in `<pid>-<random>`.
fn writer_pid(rest: &[u8]) -> Option<i32> {
    let end = rest.iter().position(|&b| b == b'-')?;
    std::str::from_utf8(&rest[..end]).ok()?.parse().ok()
}

/// Whether process `pid` exists (ours counts: its files may be in use).
fn process_is_alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    match nix::sys::signal::kill(Pid::from_raw(pid), None) {
        Ok(()) => true,
        Err(Errno::ESRCH) => false,
        // EPERM: it exists, as another user's process.
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_writers_file_goes_and_a_live_ones_stays() {
        let dir = tempfile::tempdir().unwrap();
        let name = OsStr::new("notes.md");
        // pid 2^22 + 1 is above Linux's pid_max limit: no such process.
        let dead = dir.path().join(".notes.md.pi-tmp-4194305-abcdef");
        let live = dir
            .path()
            .join(format!(".notes.md.pi-tmp-{}-abcdef", std::process::id()));
        let other = dir.path().join(".other.md.pi-tmp-4194305-abcdef");
        for path in [&dead, &live, &other] {
            std::fs::write(path, "x").unwrap();
        }
        remove_stale(dir.path(), name);
        assert!(!dead.exists());
        assert!(live.exists());
        assert!(other.exists());
    }

    #[test]
    fn a_long_name_is_cut_so_the_temporary_name_fits() {
        let long = "n".repeat(255);
        let prefix = temp_prefix(OsStr::new(&long));
        assert!(prefix.len() + 6 <= 255, "{}", prefix.len());
        assert!(prefix.as_bytes().starts_with(&stem(OsStr::new(&long))));
    }
}
