//! Replacing a file the user owns (a file `edit` or `write` changes, an
//! export, `settings.json`, `auth.json`, a migrated session) so that a full
//! disk, a kill or a crash leaves either the old content or the new, never
//! a mix, and never turns a symlink, a FIFO or a device into a regular file.
//!
//! What happens depends on what the path names (`target.rs`):
//!
//! - **A regular file, or none yet**: the new content goes to a temporary
//!   file beside the real file (symlinks followed), named
//!   `.<name>.pi-tmp-<pid>-<random>`; it is flushed to disk (`fsync`), given
//!   the old file's mode and owner, and renamed over the real file; then the
//!   directory is flushed. A temporary file left by a killed process is
//!   removed the next time the same file is written (`leftovers.rs`).
//! - **A regular file that cannot be replaced without changing what it
//!   is**: more than one hard link (a rename would split them), an owner
//!   this process cannot give the new file (a rename would change it), or a
//!   directory where no file can be created. It is written in place
//!   (`in_place.rs`): the room the new content needs is reserved first, so a
//!   full disk fails before a byte changes; only a kill during the write
//!   itself can leave a mix there.
//! - **Not a regular file** (a FIFO, a character device, `/dev/stdout` and
//!   the other links in `/dev` and `/proc`): written in place, appended to
//!   what is open there, never replaced.

mod in_place;
mod leftovers;
mod target;

use std::fs::{File, Permissions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use target::Target;

/// How a file that does not exist yet is created, and what the caller needs
/// of the written file.
#[derive(Debug, Clone, Copy)]
pub struct ReplaceOptions {
    /// Permission bits of a new file, before the process's umask (an
    /// existing file keeps its own): `0o666` for a file the user asked for,
    /// `0o600` for secrets.
    pub new_file_mode: u32,
    /// Take an exclusive advisory lock (`flock`) on the new file before it
    /// appears at the path, so that no other process can lock it first.
    pub lock: bool,
}

impl ReplaceOptions {
    /// A file the user asked for: created with mode `0o666` less the umask.
    pub const USER_FILE: Self = Self {
        new_file_mode: 0o666,
        lock: false,
    };
    /// A file holding secrets: created with mode `0o600`.
    pub const PRIVATE_FILE: Self = Self {
        new_file_mode: 0o600,
        lock: false,
    };
}

/// How the content reached the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// A temporary file renamed over the real file (or created there).
    Renamed,
    /// A regular file written in place, for the reason given.
    InPlace(InPlaceReason),
    /// Not a regular file: written to as it is (appended).
    Special,
}

/// Why a regular file was written in place instead of being replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InPlaceReason {
    /// It has more than one hard link.
    HardLinks,
    /// Its owner cannot be given to a new file by this process.
    Owner,
    /// No file can be created in its directory.
    Directory,
}

/// A file written by [`replace_file`].
#[derive(Debug)]
pub struct Replaced {
    /// The path written: the real file behind the symlinks followed.
    pub path: PathBuf,
    /// How it was written.
    pub strategy: Strategy,
    /// The written file, open for writing (locked when asked for).
    pub file: File,
}

/// One step of [`replace_file`] and the system call that failed there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Following the path's symlinks to the real file.
    Resolve,
    /// Creating the temporary file.
    CreateTemp,
    /// Writing the content.
    Write,
    /// Flushing the content to disk.
    Sync,
    /// Giving the new file the old one's mode or owner.
    Metadata,
    /// Locking the new file.
    Lock,
    /// Renaming the temporary file over the real one.
    Rename,
    /// Opening the file to write it in place.
    Open,
    /// Reserving the room the new content needs.
    Reserve,
}

impl Step {
    /// The system call that failed, as Node names it in its error messages.
    pub fn syscall(self) -> &'static str {
        match self {
            Self::Resolve => "readlink",
            Self::CreateTemp | Self::Open => "open",
            Self::Write => "write",
            Self::Sync => "fsync",
            Self::Metadata => "fchown",
            Self::Lock => "flock",
            Self::Rename => "rename",
            Self::Reserve => "fallocate",
        }
    }
}

/// A failed [`replace_file`]: the step, the path it failed on (the
/// temporary file for the steps that write one) and whether the target is
/// untouched.
#[derive(Debug, thiserror::Error)]
#[error("{source}: {} '{}'{}", step.syscall(), path.display(), if *unchanged { format!(" ({} was not changed)", target.display()) } else { String::new() })]
pub struct ReplaceError {
    /// The step that failed.
    pub step: Step,
    /// The path the failing call was made on.
    pub path: PathBuf,
    /// The file being replaced.
    pub target: PathBuf,
    /// True when the target still holds its old content (or still does not
    /// exist): every failure except a failed write in place.
    pub unchanged: bool,
    /// The I/O error.
    #[source]
    pub source: io::Error,
}

impl ReplaceError {
    fn new(step: Step, path: &Path, target: &Path, source: io::Error) -> Self {
        Self {
            step,
            path: path.to_path_buf(),
            target: target.to_path_buf(),
            unchanged: true,
            source,
        }
    }
}

impl From<ReplaceError> for io::Error {
    fn from(error: ReplaceError) -> Self {
        io::Error::new(error.source.kind(), error)
    }
}

/// Replaces `path` by `content`; see the module documentation.
pub fn replace_file(
    path: &Path,
    options: ReplaceOptions,
    content: &[u8],
) -> Result<Replaced, ReplaceError> {
    replace_file_with(path, options, |out| out.write_all(content))
}

/// Replaces `path` by what `write` writes (buffered); see the module
/// documentation. An error of `write` aborts the replacement, the file
/// untouched (except when written in place).
pub fn replace_file_with(
    path: &Path,
    options: ReplaceOptions,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<Replaced, ReplaceError> {
    let target = target::resolve(path).map_err(|source| {
        // A directory fails where pi's `open` of it fails.
        let step = if source.kind() == io::ErrorKind::IsADirectory {
            Step::Open
        } else {
            Step::Resolve
        };
        ReplaceError::new(step, path, path, source)
    })?;
    match target {
        Target::Special(real) => in_place::write_special(&real, write),
        Target::New(real) => replace_through_temp(&real, None, options, write),
        Target::Regular(real, meta) if meta.nlink() > 1 => {
            in_place::write_regular(&real, &meta, InPlaceReason::HardLinks, options, write)
        }
        Target::Regular(real, meta) => replace_through_temp(&real, Some(&meta), options, write),
    }
}

fn replace_through_temp(
    real: &Path,
    old: Option<&std::fs::Metadata>,
    options: ReplaceOptions,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<Replaced, ReplaceError> {
    let dir = target::parent_dir(real);
    let name = real.file_name().unwrap_or(real.as_os_str());
    leftovers::remove_stale(dir, name);
    let prefix = leftovers::temp_prefix(name);
    let created = tempfile::Builder::new()
        .prefix(&prefix)
        .rand_bytes(6)
        .permissions(Permissions::from_mode(options.new_file_mode))
        .tempfile_in(dir);
    let mut temp = match (created, old) {
        (Ok(temp), _) => temp,
        (Err(e), Some(meta)) if e.kind() == io::ErrorKind::PermissionDenied => {
            return in_place::write_regular(real, meta, InPlaceReason::Directory, options, write);
        }
        // Named as pi's `open` of the file itself would fail.
        (Err(source), _) => return Err(ReplaceError::new(Step::CreateTemp, real, real, source)),
    };
    let temp_path = temp.path().to_path_buf();
    let fail = |step, source| ReplaceError::new(step, &temp_path, real, source);
    if let Some(old) = old {
        let file = temp.as_file();
        let mine = file.metadata().map_err(|e| fail(Step::Metadata, e))?;
        if (mine.uid(), mine.gid()) != (old.uid(), old.gid())
            && let Err(e) = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid()))
        {
            if e.kind() != io::ErrorKind::PermissionDenied {
                return Err(fail(Step::Metadata, e));
            }
            drop(temp);
            return in_place::write_regular(real, old, InPlaceReason::Owner, options, write);
        }
        // After the owner: changing it clears the set-id bits.
        file.set_permissions(Permissions::from_mode(old.mode() & 0o7777))
            .map_err(|e| fail(Step::Metadata, e))?;
    }
    {
        let mut out = BufWriter::with_capacity(1 << 16, temp.as_file_mut());
        write(&mut out).map_err(|e| fail(Step::Write, e))?;
        out.flush().map_err(|e| fail(Step::Write, e))?;
    }
    temp.as_file().sync_all().map_err(|e| fail(Step::Sync, e))?;
    if options.lock {
        temp.as_file().lock().map_err(|e| fail(Step::Lock, e))?;
    }
    let file = temp
        .persist(real)
        .map_err(|e| ReplaceError::new(Step::Rename, real, real, e.error))?;
    // The rename itself is durable only once the directory is.
    if let Err(e) = File::open(dir).and_then(|d| d.sync_all()) {
        tracing::warn!(dir = %dir.display(), "cannot flush the directory after a rename: {e}");
    }
    Ok(Replaced {
        path: real.to_path_buf(),
        strategy: Strategy::Renamed,
        file,
    })
}

#[cfg(test)]
mod tests;
