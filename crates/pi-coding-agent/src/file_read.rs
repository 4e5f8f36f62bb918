//! Reading files whose path comes from outside (a cloned repository's
//! `AGENTS.md`, settings, auth, models, themes, skills, sessions, `@file`
//! arguments) without hanging or exhausting memory: a FIFO is opened
//! without waiting for a writer, a device or FIFO is refused where a
//! regular file is expected, and every read has a size bound.
//!
//! - [`read_regular`] / [`read_regular_to_string`]: a configuration or
//!   context file; it must be a regular file (symlinks followed) of at most
//!   the given size.
//! - [`open_regular`]: a regular file to stream (a session file, of any size).
//! - [`read_input`]: an input the user named (`@file`): a regular file, or a
//!   FIFO or device (`@<(git diff)`, `@/dev/stdin`) read until its end,
//!   within the bound.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use nix::fcntl::{FcntlArg, OFlag, fcntl};

/// The size bound of a configuration or context file (settings, auth,
/// models, keybindings, themes, context files, skills, prompt templates).
pub const CONFIG_FILE_LIMIT: u64 = 16 << 20;

/// The size bound of a file the user names as input (`@file`).
pub const INPUT_FILE_LIMIT: u64 = 64 << 20;

/// Opens `path` for reading without waiting on a FIFO with no writer; the
/// handle blocks as usual afterwards.
fn open_nonblocking(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK)
        .open(path)?;
    let flags = fcntl(&file, FcntlArg::F_GETFL)?;
    let blocking = OFlag::from_bits_truncate(flags) - OFlag::O_NONBLOCK;
    fcntl(&file, FcntlArg::F_SETFL(blocking))?;
    Ok(file)
}

/// What a file that is not a regular one is, for an error message.
pub(crate) fn kind_of(file_type: std::fs::FileType) -> &'static str {
    if file_type.is_dir() {
        "a directory"
    } else if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// Opens the regular file at `path` (symlinks followed); anything else is
/// refused with an `InvalidInput` error naming what it is.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = open_nonblocking(path)?;
    let file_type = file.metadata()?.file_type();
    if !file_type.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file ({})", kind_of(file_type)),
        ));
    }
    Ok(file)
}

/// Reads `file` to its end, failing once it holds more than `limit` bytes.
fn read_bounded(file: File, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("larger than {} MiB", limit >> 20),
        ));
    }
    Ok(bytes)
}

/// The bytes of the regular file at `path`, at most `limit` of them (else a
/// `FileTooLarge` error, before reading the rest).
pub fn read_regular(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    if file.metadata()?.len() > limit {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("larger than {} MiB", limit >> 20),
        ));
    }
    read_bounded(file, limit)
}

/// [`read_regular`] as UTF-8 text (an `InvalidData` error otherwise).
pub fn read_regular_to_string(path: impl AsRef<Path>, limit: u64) -> io::Result<String> {
    String::from_utf8(read_regular(path.as_ref(), limit)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not valid UTF-8"))
}

/// The bytes of an input the user named: a regular file, or a FIFO or a
/// device read until its end; at most `limit` bytes. A FIFO that no process
/// writes to reads as empty instead of waiting for one.
pub fn read_input(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open_nonblocking(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::from(io::ErrorKind::IsADirectory));
    }
    if meta.is_file() && meta.len() > limit {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("larger than {} MiB", limit >> 20),
        ));
    }
    read_bounded(file, limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fifo(dir: &Path) -> std::path::PathBuf {
        let path = dir.join("pipe");
        nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        path
    }

    #[test]
    fn a_fifo_or_a_device_is_refused_at_once_where_a_file_is_expected() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_regular(&fifo(dir.path()), CONFIG_FILE_LIMIT).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(err.to_string(), "not a regular file (a FIFO)");
        let err = read_regular(Path::new("/dev/zero"), CONFIG_FILE_LIMIT).unwrap_err();
        assert_eq!(err.to_string(), "not a regular file (a character device)");
        // Through a symlink too (a cloned repository's AGENTS.md).
        let link = dir.path().join("AGENTS.md");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert!(read_regular_to_string(&link, CONFIG_FILE_LIMIT).is_err());
    }

    #[test]
    fn a_file_over_the_bound_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        std::fs::write(&path, vec![b'x'; 2 << 20]).unwrap();
        let err = read_regular(&path, 1 << 20).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(err.to_string(), "larger than 1 MiB");
        assert_eq!(read_regular(&path, 2 << 20).unwrap().len(), 2 << 20);
    }

    #[test]
    fn an_input_fifo_is_read_and_a_device_is_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let pipe = fifo(dir.path());
        // No writer: empty at once, never a hang.
        assert_eq!(read_input(&pipe, 1024).unwrap(), b"");
        let writer = {
            let pipe = pipe.clone();
            // A reader that found no writer yet may close before the write:
            // the writer tries again, as the reader does.
            std::thread::spawn(
                move || {
                    while std::fs::write(&pipe, "diff --git a b\n").is_err() {}
                },
            )
        };
        // Wait for the writer to open its end, as `<(git diff)` has.
        let mut text = Vec::new();
        for _ in 0..200 {
            text = read_input(&pipe, 1024).unwrap();
            if !text.is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        writer.join().unwrap();
        assert_eq!(text, b"diff --git a b\n");
        let err = read_input(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::FileTooLarge);
    }
}
