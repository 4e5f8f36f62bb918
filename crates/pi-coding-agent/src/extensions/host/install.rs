//! Where the Node host lives on a user's machine. Its files are embedded
//! in the binary (`host/` of this crate, so `cargo install` carries them);
//! on first use they are written to `<cache>/pi-rs/extension-host/<fingerprint>/`
//! and its pinned packages (jiti, pi-tui, typebox) installed there with
//! `npm ci`, with a line saying so. The folder is built beside and renamed
//! into place, so a failed install leaves nothing half-made.
//! `PI_EXTENSION_HOST_DIR` names a ready folder instead (development, tests).

use std::path::{Path, PathBuf};

use super::connection::HostError;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/extension_host_files.rs"));
}

/// The environment variable naming a ready host folder.
pub const HOST_DIR_ENV: &str = "PI_EXTENSION_HOST_DIR";

/// The packages the host installs, for the progress line.
const PACKAGES: &str = "jiti, @mariozechner/pi-tui, typebox";

/// The folder with the host's `main.mjs` and its `node_modules`, installed
/// first when needed (`progress` gets one line per step). Blocking: call it
/// off the async runtime.
pub fn host_dir(progress: &dyn Fn(&str)) -> Result<PathBuf, HostError> {
    if let Some(dir) = std::env::var_os(HOST_DIR_ENV) {
        let dir = PathBuf::from(dir);
        if !dir.join("main.mjs").is_file() {
            return Err(HostError::Start(format!(
                "{HOST_DIR_ENV}={} has no main.mjs",
                dir.display()
            )));
        }
        return Ok(dir);
    }
    if embedded::FILES.is_empty() {
        return Err(HostError::Start(
            "this pi-rs was built without its extension host".into(),
        ));
    }
    let base = dirs::cache_dir()
        .unwrap_or_else(|| crate::session::agent_dir().join("cache"))
        .join("pi-rs")
        .join("extension-host");
    let dir = base.join(embedded::FINGERPRINT);
    if dir.join(".installed").is_file() {
        return Ok(dir);
    }
    install(&base, &dir, progress)?;
    Ok(dir)
}

fn start_error(what: &str, error: impl std::fmt::Display) -> HostError {
    HostError::Start(format!(
        "cannot install the extension host ({what}): {error}"
    ))
}

fn install(base: &Path, dir: &Path, progress: &dyn Fn(&str)) -> Result<(), HostError> {
    std::fs::create_dir_all(base).map_err(|e| start_error("create its folder", e))?;
    let staging = tempfile::Builder::new()
        .prefix(".installing-")
        .tempdir_in(base)
        .map_err(|e| start_error("create its folder", e))?;
    for (name, bytes) in embedded::FILES {
        let path = staging.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| start_error("write its files", e))?;
        }
        std::fs::write(&path, bytes).map_err(|e| start_error("write its files", e))?;
    }
    progress(&format!(
        "Installing the TypeScript extension host's packages ({PACKAGES}) into {} ...",
        dir.display()
    ));
    let output = std::process::Command::new(npm())
        .args([
            "ci",
            "--omit=dev",
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
        ])
        .current_dir(staging.path())
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| start_error("run npm", e))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(start_error("npm ci failed; offline?", last.trim()));
    }
    std::fs::write(staging.path().join(".installed"), embedded::FINGERPRINT)
        .map_err(|e| start_error("write its files", e))?;
    let staged = staging.keep();
    match std::fs::rename(&staged, dir) {
        Ok(()) => {}
        // Another pi installed it meanwhile.
        Err(_) if dir.join(".installed").is_file() => {
            let _ = std::fs::remove_dir_all(&staged);
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staged);
            return Err(start_error("move it into place", e));
        }
    }
    progress("Installed the TypeScript extension host.");
    Ok(())
}

/// `npm` (`npm.cmd` on Windows).
fn npm() -> &'static str {
    if cfg!(windows) { "npm.cmd" } else { "npm" }
}
