//! The package's example programs the tests run: `pi` with the `ui_demo`
//! extensions, the misbehaving MCP server. `cargo test -p pi-coding-agent`
//! builds the examples with the tests; when only the `it` target was built
//! (`--test it`), a missing or stale example is built here.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

/// The examples already checked by this test process.
static CHECKED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The binary of example `name` (`examples/NAME.rs` or `examples/NAME/`),
/// built first when it is missing or older than its sources or, when
/// `uses_library`, than the newest build of the library (it changed since).
/// A nested build selects one package, so its features differ from a
/// workspace build's and it compiles the library and part of its
/// dependencies again (about a minute): it runs only when needed, once per
/// process and example. After `cargo test`, which links the examples after
/// the library, none is needed.
pub fn example(name: &str, uses_library: bool) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let debug = exe.parent().unwrap().parent().unwrap();
    let path = debug.join("examples").join(name);
    let mut checked = CHECKED.lock().unwrap_or_else(PoisonError::into_inner);
    if !checked.iter().any(|c| c == name) {
        let built = modified(&path);
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut inputs = sources(&manifest.join("examples").join(name));
        inputs.extend(sources(&manifest.join(format!("examples/{name}.rs"))));
        if uses_library {
            inputs.extend(newest_library(&debug.join("deps")));
        }
        if built.is_none_or(|built| inputs.iter().any(|input| *input > built)) {
            let status = std::process::Command::new(env!("CARGO"))
                .args([
                    "build",
                    "--quiet",
                    "-p",
                    "pi-coding-agent",
                    "--example",
                    name,
                ])
                .status()
                .unwrap();
            assert!(status.success(), "building the example {name} failed");
        }
        checked.push(name.to_owned());
    }
    assert!(path.is_file(), "{} is missing", path.display());
    path
}

/// When the package's library was last built (its newest `.rlib`, of any
/// feature set).
fn newest_library(deps: &Path) -> Option<SystemTime> {
    std::fs::read_dir(deps)
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("libpi_coding_agent-") && name.ends_with(".rlib")
        })
        .filter_map(|e| modified(&e.path()))
        .max()
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The modification times of `path` (a file) or of the files in it (a
/// folder); none when it does not exist.
fn sources(path: &Path) -> Vec<SystemTime> {
    match std::fs::read_dir(path) {
        Ok(entries) => entries
            .filter_map(|e| e.ok())
            .filter_map(|e| modified(&e.path()))
            .collect(),
        Err(_) => modified(path).into_iter().collect(),
    }
}
