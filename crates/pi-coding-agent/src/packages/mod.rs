//! pi packages: bundles of extensions, skills, prompt templates and themes
//! shared through npm, git or a local folder, listed in the `packages`
//! setting (pi 0.73.1's `docs/packages.md`).
//!
//! [`PackageManager`] installs, removes, updates and lists them
//! ([`commands`] holds the `pi install` / `remove` / `update` / `list`
//! command lines) and [`resolve`] turns the setting into the resource files
//! a start-up loads. Installing runs `npm` (or the `npmCommand` setting) and
//! `git`; everything else is file-system work, done synchronously before the
//! async runtime starts.

pub mod commands;
pub mod config_items;
mod git;
mod npm;
pub mod process;
pub mod resolve;
pub mod settings_edit;
pub mod source;
pub mod startup;
mod update;

use std::path::{Path, PathBuf};

pub use resolve::{PackageResources, Resolved};
pub use source::{GitSource, NpmSource, Source};

/// Which settings file a package belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// `<agent dir>/settings.json`; npm packages installed with `-g`, git
    /// clones under `<agent dir>/git/`.
    User,
    /// `.pi/settings.json`; installs under `.pi/npm/` and `.pi/git/`.
    Project,
    /// `-e npm:...` / `-e git:...`: one run, under the system's temp folder.
    Temporary,
}

impl Scope {
    /// `user`, `project` or `temporary`, as pi names them.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Project => "project",
            Self::Temporary => "temporary",
        }
    }
}

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// A command (npm, git) failed; the message names it as pi does.
    #[error("{command} failed with code {code}")]
    CommandFailed {
        /// The command line.
        command: String,
        /// Its exit code (`-1`: killed by a signal).
        code: i32,
    },
    /// A command could not be started.
    #[error("{command}: {source}")]
    CommandNotStarted {
        /// The command line.
        command: String,
        /// Why.
        source: std::io::Error,
    },
    /// A command whose output is read failed.
    #[error("Failed to run {command}: {output}")]
    CommandOutput {
        /// The command line.
        command: String,
        /// What it printed.
        output: String,
    },
    /// A local source that names nothing.
    #[error("Path does not exist: {}", .0.display())]
    PathMissing(PathBuf),
    /// `update <source>` with no such package configured.
    #[error("{0}")]
    NoMatch(String),
    /// `npmCommand` with an empty first entry.
    #[error("Invalid npmCommand: first array entry must be a non-empty command")]
    InvalidNpmCommand,
    /// A file or folder could not be written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A settings file could not be read or written.
    #[error(transparent)]
    Settings(#[from] crate::config::ConfigError),
}

/// The folders and settings a package operation works with.
#[derive(Debug, Clone)]
pub struct PackageManager {
    /// The working directory (project settings live in `<cwd>/.pi`).
    pub cwd: PathBuf,
    /// The agent directory (global settings and git clones).
    pub agent_dir: PathBuf,
    /// The home folder (`~` in local paths).
    pub home: PathBuf,
    /// The `npmCommand` setting (`None`: `npm`).
    pub npm_command: Option<Vec<String>>,
    /// `PI_OFFLINE`: no install, no update.
    pub offline: bool,
    /// Where npm's and git's own output goes.
    pub output: process::Output,
    global_npm_root: std::sync::OnceLock<PathBuf>,
}

/// One line of progress (`Installing npm:x...`), shown by the caller.
pub type Progress<'a> = &'a dyn Fn(&str);

impl PackageManager {
    /// A manager for `cwd` and `agent_dir`, with the `npmCommand` setting
    /// of the merged settings.
    pub fn new(cwd: &Path, agent_dir: &Path) -> Self {
        let settings = crate::config::Settings::load(agent_dir, cwd).settings;
        let npm_command = settings
            .extra
            .get("npmCommand")
            .and_then(serde_json::Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect::<Vec<_>>()
            })
            .filter(|c| !c.is_empty());
        let offline = std::env::var("PI_OFFLINE").is_ok_and(|v| {
            v == "1" || v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("yes")
        });
        Self {
            cwd: cwd.to_path_buf(),
            agent_dir: agent_dir.to_path_buf(),
            home: std::env::var_os("HOME")
                .map(PathBuf::from)
                .or_else(dirs::home_dir)
                .unwrap_or_default(),
            npm_command,
            offline,
            output: process::Output::Inherit,
            global_npm_root: std::sync::OnceLock::new(),
        }
    }

    /// The folder relative local sources of `scope` are resolved against:
    /// the settings file's folder (`.pi` or the agent dir).
    pub fn base_dir(&self, scope: Scope) -> PathBuf {
        match scope {
            Scope::User => self.agent_dir.clone(),
            Scope::Project => self.cwd.join(".pi"),
            Scope::Temporary => self.cwd.clone(),
        }
    }

    /// The settings file of `scope`.
    pub fn settings_path(&self, scope: Scope) -> PathBuf {
        self.base_dir(scope).join("settings.json")
    }

    /// Where `source` is (or would be) installed for `scope`.
    pub fn install_path(&self, source: &Source, scope: Scope) -> Result<PathBuf, PackageError> {
        Ok(match source {
            Source::Npm(npm) => self.npm_install_path(npm, scope)?,
            Source::Git(git) => self.git_install_path(git, scope),
            Source::Local(path) => source::resolve_local(path, &self.base_dir(scope), &self.home),
        })
    }

    /// The installed folder of `source` when it exists (`pi list`).
    pub fn installed_path(&self, source: &Source, scope: Scope) -> Option<PathBuf> {
        self.install_path(source, scope).ok().filter(|p| p.exists())
    }

    /// The identity of a settings entry of `scope`.
    pub fn identity(&self, source: &str, scope: Scope) -> String {
        Source::parse(source).identity(&self.base_dir(scope), &self.home)
    }

    /// The identity of a source typed on the command line (local paths
    /// relative to the working directory).
    pub fn input_identity(&self, source: &str) -> String {
        Source::parse(source).identity(&self.cwd, &self.home)
    }

    /// The folder of the system's temp dir for `-e` sources (pi's
    /// `<tmp>/pi-extensions/<prefix>/<hash>/<suffix>`).
    fn temporary_dir(&self, prefix: &str, suffix: &str) -> PathBuf {
        let digest = ring::digest::digest(
            &ring::digest::SHA256,
            format!("{prefix}-{suffix}").as_bytes(),
        );
        let hash: String = digest.as_ref()[..4]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        std::env::temp_dir()
            .join("pi-extensions")
            .join(prefix)
            .join(hash)
            .join(suffix)
    }
}

/// Creates `dir` (and its parents) with a `.gitignore` ignoring everything
/// (pi's install roots under `.pi/`).
fn ensure_git_ignore(dir: &Path) -> Result<(), PackageError> {
    let io = |source| PackageError::Io {
        path: dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    let ignore = dir.join(".gitignore");
    if !ignore.exists() {
        std::fs::write(&ignore, "*\n!.gitignore\n").map_err(io)?;
    }
    Ok(())
}
