//! The lock pi (through `proper-lockfile`) takes around a settings write: a
//! directory `<file>.lock` made with `mkdir`, which is atomic; a lock whose
//! directory is older than [`STALE`] was left by a dead process and is taken over.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// A lock older than this is stale (proper-lockfile's default).
const STALE: Duration = Duration::from_secs(10);
/// Wait between attempts.
const RETRY_DELAY: Duration = Duration::from_millis(20);
/// Attempts before giving up (about two seconds).
const ATTEMPTS: u32 = 100;

/// A held lock; released when dropped.
#[derive(Debug)]
pub(crate) struct FileLock {
    dir: PathBuf,
}

impl FileLock {
    /// Takes the lock of `file`, waiting while another process holds it.
    pub(crate) fn acquire(file: &Path) -> std::io::Result<Self> {
        let mut dir = file.as_os_str().to_owned();
        dir.push(".lock");
        let dir = PathBuf::from(dir);
        let mut attempt = 0;
        loop {
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(Self { dir }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    if is_stale(&dir) {
                        // Another waiter may remove it first; either way, try again.
                        let _ = std::fs::remove_dir(&dir);
                        continue;
                    }
                    attempt += 1;
                    if attempt >= ATTEMPTS {
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::WouldBlock,
                            format!("{} is locked by another process", file.display()),
                        ));
                    }
                    std::thread::sleep(RETRY_DELAY);
                }
                Err(e) => return Err(e),
            }
        }
    }
}

fn is_stale(dir: &Path) -> bool {
    std::fs::metadata(dir)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|modified| SystemTime::now().duration_since(modified).ok())
        .is_some_and(|age| age > STALE)
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}
