//! Writing in place: a regular file that a rename would change (hard links,
//! owner, an unwritable directory), and what is not a regular file at all.

use std::fs::{Metadata, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use nix::errno::Errno;

use super::{InPlaceReason, ReplaceError, ReplaceOptions, Replaced, Step, Strategy};

/// Overwrites the regular file `real` with the new content: the room it
/// needs beyond the old length is reserved first (`posix_fallocate`), so a
/// full disk or a file size limit fails before a byte changes; then the
/// content is written from the start, the file cut to its length and
/// flushed.
pub(super) fn write_regular(
    real: &Path,
    old: &Metadata,
    reason: InPlaceReason,
    options: ReplaceOptions,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<Replaced, ReplaceError> {
    tracing::info!(path = %real.display(), ?reason, "writing the file in place");
    let fail = |step, source| ReplaceError::new(step, real, real, source);
    let mut content = Vec::with_capacity(usize::try_from(old.len()).unwrap_or(0));
    write(&mut content).map_err(|e| fail(Step::Write, e))?;
    let file = OpenOptions::new()
        .write(true)
        .open(real)
        .map_err(|e| fail(Step::Open, e))?;
    if options.lock {
        file.lock().map_err(|e| fail(Step::Lock, e))?;
    }
    let new_len = content.len() as u64;
    let old_len = file.metadata().map_err(|e| fail(Step::Open, e))?.len();
    if new_len > old_len {
        let start = i64::try_from(old_len).unwrap_or(i64::MAX);
        let grow = i64::try_from(new_len - old_len).unwrap_or(i64::MAX);
        match nix::fcntl::posix_fallocate(&file, start, grow) {
            Ok(()) => {}
            // The file system cannot reserve: written without.
            Err(Errno::EOPNOTSUPP | Errno::ENOSYS | Errno::EINVAL) => {}
            Err(errno) => return Err(fail(Step::Reserve, io::Error::from(errno))),
        }
    }
    let changed = |step, source| ReplaceError {
        unchanged: false,
        ..fail(step, source)
    };
    file.write_all_at(&content, 0)
        .map_err(|e| changed(Step::Write, e))?;
    if new_len < old_len {
        file.set_len(new_len).map_err(|e| changed(Step::Write, e))?;
    }
    file.sync_all().map_err(|e| changed(Step::Sync, e))?;
    Ok(Replaced {
        path: real.to_path_buf(),
        strategy: Strategy::InPlace(reason),
        file,
    })
}

/// Writes to what is not a regular file (a FIFO, a device, `/dev/stdout`)
/// as it is: opened for appending, never created or replaced.
pub(super) fn write_special(
    real: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<Replaced, ReplaceError> {
    let fail = |step, source| ReplaceError {
        unchanged: false,
        ..ReplaceError::new(step, real, real, source)
    };
    let file = OpenOptions::new()
        .append(true)
        .open(real)
        .map_err(|e| ReplaceError::new(Step::Open, real, real, e))?;
    {
        let mut out = BufWriter::with_capacity(1 << 16, &file);
        write(&mut out).map_err(|e| fail(Step::Write, e))?;
        out.flush().map_err(|e| fail(Step::Write, e))?;
    }
    Ok(Replaced {
        path: real.to_path_buf(),
        strategy: Strategy::Special,
        file,
    })
}
