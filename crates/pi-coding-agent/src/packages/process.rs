//! Running `npm` and `git` as pi does: the child writes to the terminal
//! (or, when stdout belongs to a json/rpc mode, to stderr), and a failure
//! is reported as `<command> <args> failed with code N`.

use std::path::Path;
use std::process::{Command, Stdio};

use super::PackageError;

/// Where a child's stdout goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Output {
    /// The terminal, as pi's `stdio: "inherit"`.
    #[default]
    Inherit,
    /// Our stderr (stdout carries a protocol).
    ToStderr,
}

/// One command line.
#[derive(Debug, Clone)]
pub struct Cmd {
    program: String,
    args: Vec<String>,
    cwd: Option<std::path::PathBuf>,
    env: Vec<(String, String)>,
}

impl Cmd {
    /// `program args...`.
    pub fn new(program: &str, args: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self {
            program: program.to_owned(),
            args: args.into_iter().map(Into::into).collect(),
            cwd: None,
            env: Vec::new(),
        }
    }

    /// Runs in `dir`.
    pub fn cwd(mut self, dir: &Path) -> Self {
        self.cwd = Some(dir.to_path_buf());
        self
    }

    /// With `key=value` in its environment.
    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.to_owned(), value.to_owned()));
        self
    }

    /// The command line as messages show it.
    pub fn display(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.args);
        if let Some(dir) = &self.cwd {
            command.current_dir(dir);
        }
        for (key, value) in &self.env {
            command.env(key, value);
        }
        command
    }

    /// Runs it with the terminal (or stderr) as its output; `shown` is the
    /// command line a failure names.
    pub fn run_as(&self, output: Output, shown: &str) -> Result<(), PackageError> {
        let mut command = self.command();
        command.stdin(Stdio::null());
        if output == Output::ToStderr {
            command.stdout(stderr_stdio());
        }
        let status = command
            .status()
            .map_err(|source| PackageError::CommandNotStarted {
                command: shown.to_owned(),
                source,
            })?;
        if status.success() {
            Ok(())
        } else {
            Err(PackageError::CommandFailed {
                command: shown.to_owned(),
                code: status.code().unwrap_or(-1),
            })
        }
    }

    /// Runs it with the terminal as its output.
    pub fn run(&self, output: Output) -> Result<(), PackageError> {
        self.run_as(output, &self.display())
    }

    /// Runs it and returns its trimmed stdout.
    pub fn capture(&self) -> Result<String, PackageError> {
        let out = self
            .command()
            .stdin(Stdio::null())
            .output()
            .map_err(|source| PackageError::CommandNotStarted {
                command: self.display(),
                source,
            })?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
        } else {
            let mut text = String::from_utf8_lossy(&out.stderr).into_owned();
            if text.trim().is_empty() {
                text = String::from_utf8_lossy(&out.stdout).into_owned();
            }
            Err(PackageError::CommandOutput {
                command: self.display(),
                output: text.trim().to_owned(),
            })
        }
    }
}

#[cfg(unix)]
fn stderr_stdio() -> Stdio {
    use std::os::fd::AsFd;
    std::io::stderr()
        .as_fd()
        .try_clone_to_owned()
        .map_or_else(|_| Stdio::null(), Stdio::from)
}

#[cfg(not(unix))]
fn stderr_stdio() -> Stdio {
    Stdio::null()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_name_the_command_and_code() {
        let err = Cmd::new("sh", ["-c", "exit 3"]).run(Output::ToStderr);
        assert_eq!(
            err.map_err(|e| e.to_string()),
            Err("sh -c exit 3 failed with code 3".to_owned())
        );
        assert_eq!(
            Cmd::new("sh", ["-c", "echo hi"]).capture().ok().as_deref(),
            Some("hi")
        );
        let err = Cmd::new("sh", ["-c", "echo bad >&2; exit 1"]).capture();
        assert_eq!(
            err.map_err(|e| e.to_string()),
            Err("Failed to run sh -c echo bad >&2; exit 1: bad".to_owned())
        );
    }
}
