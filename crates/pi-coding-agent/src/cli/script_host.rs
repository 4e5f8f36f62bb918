//! Starting the extension host for a command line: the script extensions
//! it names (`-e`, the `extensions` setting, the discovery folders) are
//! found before the arguments are parsed, because the flags they register
//! are part of the command line (pi's second parse).

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;

use crate::extensions::host::{self, HostHandle, HostOptions};

use crate::extensions::loader::{self, DiscoveryOptions};

/// What the host gave a start-up.
#[derive(Default)]
pub(crate) struct Hosted {
    /// The script extensions found (each loaded or warned about).
    pub(crate) files: Vec<PathBuf>,
    /// Scripts whose host could not start.
    pub(crate) warnings: Vec<String>,
    /// Scripts that failed to load (pi's error lines).
    pub(crate) errors: Vec<String>,
    /// The extensions it loaded.
    pub(crate) extensions: Vec<std::sync::Arc<dyn crate::extensions::Extension>>,
    /// The running hosts (none: no script extension).
    pub(crate) handles: Vec<HostHandle>,
}

/// `-e` values, `--no-extensions`, and the mode, read from raw arguments.
fn scan(args: &[OsString]) -> (Vec<String>, bool, String) {
    let mut explicit = Vec::new();
    let mut no_extensions = false;
    let mut mode = None;
    let mut print = false;
    let mut iter = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(arg) = iter.next() {
        match arg.as_ref() {
            "-e" | "--extension" => explicit.extend(iter.next().map(|v| v.into_owned())),
            "--no-extensions" => no_extensions = true,
            "--mode" => mode = iter.next().map(|v| v.into_owned()),
            "-p" | "--print" => print = true,
            other => {
                if let Some(value) = other.strip_prefix("--extension=") {
                    explicit.push(value.to_owned());
                } else if let Some(value) = other.strip_prefix("--mode=") {
                    mode = Some(value.to_owned());
                }
            }
        }
    }
    let mode = match mode.as_deref() {
        Some("rpc") => "rpc",
        Some("json") => "json",
        _ if print || !std::io::stdin().is_terminal() => "print",
        _ => "interactive",
    };
    (explicit, no_extensions, mode.to_owned())
}

/// Finds the script extensions of `args` and, when there are any, starts
/// the host and loads them.
pub(crate) async fn start(args: &[OsString], packaged: &[PathBuf]) -> Hosted {
    let (explicit, no_extensions, mode) = scan(args);
    let Ok(cwd) = std::env::current_dir() else {
        return Hosted::default();
    };
    let agent_dir = crate::session::agent_dir();
    let settings = crate::config::Settings::load(&agent_dir, &cwd).settings;
    // The extensions of pi packages load as the `extensions` setting's do.
    let mut configured = loader::configured_paths(&settings);
    configured.extend(packaged.iter().map(|p| p.to_string_lossy().into_owned()));
    let found = loader::discover(&DiscoveryOptions {
        cwd: cwd.clone(),
        agent_dir: agent_dir.clone(),
        explicit,
        configured,
        no_extensions,
    });
    if found.files.is_empty() {
        return Hosted::default();
    }
    let options = HostOptions {
        cwd,
        agent_dir,
        output_to_terminal: mode == "interactive",
        mode,
        ..HostOptions::default()
    };
    let started = host::start(&found.files, options).await;
    Hosted {
        files: found.files,
        warnings: started.warnings,
        errors: started.errors,
        extensions: started.extensions,
        handles: started.handles,
    }
}
