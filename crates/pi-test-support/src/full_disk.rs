//! A disk that fills up, for tests of what a program does when a write
//! fails halfway: a small tmpfs mounted for the test where the process may
//! mount one (root, as in CI), else a file size limit (`RLIMIT_FSIZE`, set by
//! `prlimit`) on the child processes, which then see `EFBIG` where a full
//! disk gives `ENOSPC` (`SIGXFSZ` is ignored in them, as a full disk sends
//! no signal).
//!
//! A test places its files in [`FullDisk::path`], then leaves only a little
//! room with [`FullDisk::fill_leaving`]: on the tmpfs a filler file takes
//! the rest; under the limit, no file may grow past that many bytes.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Size of the tmpfs mounted for a test.
const TMPFS_BYTES: u64 = 256 << 20;

/// A directory whose disk can be made (almost) full.
pub struct FullDisk {
    dir: tempfile::TempDir,
    mounted: bool,
    /// Under a file size limit: the limit, once set.
    limit: Option<u64>,
}

impl FullDisk {
    /// A fresh directory: a tmpfs of its own where one can be mounted
    /// (`PI_FULL_DISK=rlimit` asks for the file size limit instead).
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let size = format!("size={TMPFS_BYTES}");
        let rlimit = std::env::var("PI_FULL_DISK").is_ok_and(|v| v == "rlimit");
        let mounted = !rlimit
            && nix::mount::mount(
                Some("tmpfs"),
                dir.path(),
                Some("tmpfs"),
                nix::mount::MsFlags::empty(),
                Some(size.as_str()),
            )
            .is_ok();
        Self {
            dir,
            mounted,
            limit: None,
        }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Whether the directory is a tmpfs of its own (else the children get a
    /// file size limit).
    pub fn is_tmpfs(&self) -> bool {
        self.mounted
    }

    fn filler(&self) -> PathBuf {
        self.dir.path().join(".filler")
    }

    /// Leaves about `room` bytes for new data: on the tmpfs, a filler file
    /// takes the rest of the space; else files may not grow past `room`
    /// bytes (in children started with [`Self::wrap`] after this call, or
    /// running ones given to [`Self::apply_to`]).
    pub fn fill_leaving(&mut self, room: u64) {
        if !self.mounted {
            self.limit = Some(room);
            return;
        }
        let stat = nix::sys::statvfs::statvfs(self.dir.path()).unwrap();
        let free = stat.blocks_available() * stat.fragment_size();
        let filler = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.filler())
            .unwrap();
        // Written, not just sized: tmpfs counts the pages in use.
        let grow = free.saturating_sub(room);
        let mut out = std::io::BufWriter::new(filler);
        let block = vec![0u8; 1 << 16];
        let mut left = grow;
        while left > 0 {
            let n = usize::try_from(left.min(block.len() as u64)).unwrap();
            std::io::Write::write_all(&mut out, &block[..n]).unwrap();
            left -= n as u64;
        }
        std::io::Write::flush(&mut out).unwrap();
    }

    /// Frees the space again: the filler goes, or the limit is lifted for
    /// later children (and running ones given to [`Self::apply_to`]).
    pub fn free(&mut self) {
        if self.mounted {
            let _ = std::fs::remove_file(self.filler());
        }
        self.limit = None;
    }

    /// `command` as it is on the tmpfs, else run under the file size limit
    /// (its soft limit: none until one is set) with `SIGXFSZ` ignored (program, arguments,
    /// environment and directory carried over; set its stdio after this
    /// call).
    pub fn wrap(&self, command: &Command) -> Command {
        if self.mounted {
            let mut same = Command::new(command.get_program());
            copy_setup(command, &mut same);
            return same;
        }
        let limit = self
            .limit
            .map_or_else(|| "unlimited".to_owned(), |l| l.to_string());
        let mut limited = Command::new("sh");
        // An ignored signal stays ignored across exec (also for a limit
        // set later by `apply_to`).
        limited.args([
            "-c",
            "trap '' XFSZ; exec prlimit --fsize=\"$0:\" -- \"$@\"",
            &limit,
        ]);
        limited.arg(command.get_program());
        copy_setup(command, &mut limited);
        limited
    }

    /// Sets the running process `pid`'s file size limit to the current one
    /// (none after [`Self::free`]). Nothing to do on the tmpfs.
    pub fn apply_to(&self, pid: u32) {
        if self.mounted {
            return;
        }
        let limit = self
            .limit
            .map_or_else(|| "unlimited".to_owned(), |l| l.to_string());
        let status = Command::new("prlimit")
            .arg(format!("--pid={pid}"))
            .arg(format!("--fsize={limit}:"))
            .status()
            .unwrap();
        assert!(status.success(), "prlimit --pid {pid} failed");
    }
}

/// Carries `from`'s arguments, environment and directory over to `to`.
fn copy_setup(from: &Command, to: &mut Command) {
    to.args(from.get_args());
    for (key, value) in from.get_envs() {
        match value {
            Some(value) => to.env(key, value),
            None => to.env_remove(key),
        };
    }
    if let Some(dir) = from.get_current_dir() {
        to.current_dir(dir);
    }
}

impl Default for FullDisk {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for FullDisk {
    fn drop(&mut self) {
        if self.mounted {
            let _ = nix::mount::umount2(self.dir.path(), nix::mount::MntFlags::MNT_DETACH);
        }
    }
}
