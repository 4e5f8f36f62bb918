//! What a path to be written names: a regular file, nothing yet, or
//! something that is written to as it is; symlinks followed to the real
//! file, except the kernel's links in `/dev` and `/proc` (`/dev/stdout`,
//! `/proc/self/fd/1`), which name whatever is open there.

use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};

/// Symlinks followed before giving up, as the kernel's `ELOOP` limit.
const MAX_LINKS: usize = 40;

/// What a path to be written names, at its real path.
#[derive(Debug)]
pub(super) enum Target {
    /// Nothing yet (a dangling symlink names the file it points to).
    New(PathBuf),
    /// A regular file.
    Regular(PathBuf, Metadata),
    /// A FIFO, a device, a socket or a kernel link: written as it is.
    Special(PathBuf),
}

/// The directory of `path` (`.` for a bare name).
pub(super) fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Follows `path`'s symlinks (the last component's; the kernel follows the
/// directories') to what it names.
pub(super) fn resolve(path: &Path) -> io::Result<Target> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let meta = match std::fs::symlink_metadata(&current) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Target::New(current)),
            Err(e) => return Err(e),
        };
        let kind = meta.file_type();
        if kind.is_symlink() {
            if is_kernel_link(&current) {
                return Ok(Target::Special(current));
            }
            let link = std::fs::read_link(&current)?;
            current = if link.is_absolute() {
                link
            } else {
                parent_dir(&current).join(link)
            };
        } else if kind.is_file() {
            return Ok(Target::Regular(current, meta));
        } else if kind.is_dir() {
            return Err(io::Error::from(io::ErrorKind::IsADirectory));
        } else {
            return Ok(Target::Special(current));
        }
    }
    Err(io::Error::from_raw_os_error(nix::libc::ELOOP))
}

/// A link the kernel makes (`/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`):
/// it names an open file, which may be a pipe or a terminal.
fn is_kernel_link(path: &Path) -> bool {
    path.starts_with("/dev") || path.starts_with("/proc")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_relative_and_absolute_links_to_the_real_file() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        std::fs::write(&real, "{}").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::os::unix::fs::symlink("../real.json", dir.path().join("sub/rel")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("sub/rel"), dir.path().join("abs")).unwrap();
        match resolve(&dir.path().join("abs")).unwrap() {
            Target::Regular(path, _) => {
                assert_eq!(path.canonicalize().unwrap(), real.canonicalize().unwrap());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_dangling_link_names_the_file_to_create_and_a_loop_fails() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("new.txt", &link).unwrap();
        match resolve(&link).unwrap() {
            Target::New(path) => assert_eq!(path, dir.path().join("new.txt")),
            other => panic!("{other:?}"),
        }
        std::os::unix::fs::symlink("b", dir.path().join("a")).unwrap();
        std::os::unix::fs::symlink("a", dir.path().join("b")).unwrap();
        let err = resolve(&dir.path().join("a")).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(nix::libc::ELOOP));
    }

    #[test]
    fn devices_and_kernel_links_are_written_as_they_are() {
        assert!(matches!(
            resolve(Path::new("/dev/null")),
            Ok(Target::Special(_))
        ));
        match resolve(Path::new("/dev/stdout")) {
            Ok(Target::Special(path)) => assert_eq!(path, Path::new("/dev/stdout")),
            other => panic!("{other:?}"),
        }
        assert!(resolve(Path::new("/")).is_err());
    }
}
