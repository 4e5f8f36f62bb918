//! pi's own lock on auth.json, taken as well so that pi and pi-rs sharing an
//! agent dir do not race: pi 0.73.1 locks with `proper-lockfile`, which
//! creates the directory `auth.json.lock` and treats one whose modification
//! time is older than its `stale` limit (30 s for refreshes) as abandoned.
//! pi-rs processes serialize among themselves with `flock` first
//! ([`crate::config::AUTH_LOCK_FILE`]), then take this directory; a live pi
//! holder is waited for up to 10 s, after which the write proceeds (with a
//! warning) rather than fail the user's command.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// pi's `stale` limit for its auth.json lock.
const STALE: Duration = Duration::from_secs(30);
/// How long to wait for a live pi holder.
const WAIT: Duration = Duration::from_secs(10);
/// How often to look.
const POLL: Duration = Duration::from_millis(20);

/// pi's lock directory, held until dropped.
#[derive(Debug)]
pub(crate) struct PiLock {
    dir: PathBuf,
}

impl Drop for PiLock {
    fn drop(&mut self) {
        if let Err(error) = std::fs::remove_dir(&self.dir) {
            tracing::debug!("cannot remove {}: {error}", self.dir.display());
        }
    }
}

/// `<auth.json>.lock`, the directory proper-lockfile creates.
pub(crate) fn lock_dir(auth_path: &Path) -> PathBuf {
    let mut name = auth_path.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

enum Attempt {
    Taken(PiLock),
    Held,
    Failed(std::io::Error),
}

fn attempt(dir: &Path) -> Attempt {
    match std::fs::create_dir(dir) {
        Ok(()) => Attempt::Taken(PiLock {
            dir: dir.to_path_buf(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let stale = std::fs::metadata(dir)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().unwrap_or_default() > STALE);
            if stale {
                tracing::warn!("taking over the stale lock {}", dir.display());
                let _ = std::fs::remove_dir(dir);
            }
            Attempt::Held
        }
        Err(e) => Attempt::Failed(e),
    }
}

fn give_up(dir: &Path, why: &str) -> Option<PiLock> {
    tracing::warn!(
        "writing auth.json without pi's lock {}: {why}",
        dir.display()
    );
    None
}

/// Takes pi's lock, waiting without blocking the runtime.
pub(crate) async fn take(auth_path: &Path) -> Option<PiLock> {
    let dir = lock_dir(auth_path);
    let started = tokio::time::Instant::now();
    loop {
        match attempt(&dir) {
            Attempt::Taken(lock) => return Some(lock),
            Attempt::Failed(e) => return give_up(&dir, &e.to_string()),
            Attempt::Held if started.elapsed() >= WAIT => return give_up(&dir, "still held"),
            Attempt::Held => tokio::time::sleep(POLL).await,
        }
    }
}

/// Takes pi's lock from synchronous code.
pub(crate) fn take_blocking(auth_path: &Path) -> Option<PiLock> {
    let dir = lock_dir(auth_path);
    let started = std::time::Instant::now();
    loop {
        match attempt(&dir) {
            Attempt::Taken(lock) => return Some(lock),
            Attempt::Failed(e) => return give_up(&dir, &e.to_string()),
            Attempt::Held if started.elapsed() >= WAIT => return give_up(&dir, "still held"),
            Attempt::Held => std::thread::sleep(POLL),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_pi_lock_is_waited_for_and_a_stale_one_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let auth = dir.path().join("auth.json");
        let pi = lock_dir(&auth);
        assert_eq!(pi, dir.path().join("auth.json.lock"));
        // pi holds it for 200 ms.
        std::fs::create_dir(&pi).unwrap();
        let release = {
            let pi = pi.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(200));
                std::fs::remove_dir(pi).unwrap();
            })
        };
        let started = std::time::Instant::now();
        let lock = take_blocking(&auth).unwrap();
        assert!(started.elapsed() >= Duration::from_millis(200));
        release.join().unwrap();
        assert!(pi.is_dir());
        drop(lock);
        assert!(!pi.exists(), "released");
        // A crashed pi left one a minute ago.
        std::fs::create_dir(&pi).unwrap();
        let old = std::time::SystemTime::now() - Duration::from_secs(60);
        std::fs::File::open(&pi).unwrap().set_modified(old).unwrap();
        let started = std::time::Instant::now();
        let lock = take_blocking(&auth).unwrap();
        assert!(started.elapsed() < Duration::from_secs(5));
        drop(lock);
        assert!(!pi.exists());
    }
}
