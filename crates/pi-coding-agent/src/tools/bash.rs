//! `bash {command, timeout?}`: runs a command with the user's shell in its
//! own process group, streams the merged stdout/stderr as partial results,
//! keeps the tail of long output (the full output goes to a temp file) and
//! kills the whole group on timeout or cancellation.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use async_trait::async_trait;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use pi_agent_core::{AgentToolResult, ArgumentConversion, ToolError, ToolUpdateFn, TypedTool};
use pi_ai::{CancellationToken, UserBlock};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::AsyncReadExt as _;
use tokio::process::Command;
use tokio::time::Instant;

use super::bash_output::{OutputAccumulator, OutputSnapshot};
use super::truncate::{DEFAULT_MAX_BYTES, TruncatedBy, TruncationResult, format_size};

/// Partial results are sent at most this often (pi's throttle).
const UPDATE_INTERVAL: Duration = Duration::from_millis(100);

/// After the shell exits, output still buffered in the pipes is read for at
/// most this long; a background process holding the pipes open does not
/// keep the call waiting.
const DRAIN_GRACE: Duration = Duration::from_millis(250);

/// The shell that runs commands: a program and the arguments before the
/// command string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellConfig {
    /// The shell executable.
    pub program: PathBuf,
    /// Arguments placed before the command (`["-c"]`).
    pub args: Vec<String>,
}

impl ShellConfig {
    /// pi's shell on Unix: `/bin/bash` when present, else the first `bash`
    /// on `PATH`, else `sh`; always run with `-c`. (`$SHELL` is not
    /// consulted, so a zsh user's commands still run in bash, as in pi.)
    pub fn detect() -> Self {
        let bash = PathBuf::from("/bin/bash");
        let program = if bash.is_file() {
            bash
        } else {
            std::env::var_os("PATH")
                .and_then(|path| {
                    std::env::split_paths(&path)
                        .map(|dir| dir.join("bash"))
                        .find(|candidate| candidate.is_file())
                })
                .unwrap_or_else(|| PathBuf::from("sh"))
        };
        Self {
            program,
            args: vec!["-c".to_owned()],
        }
    }

    /// pi's shell choice: `custom` (the `shellPath` setting) when given,
    /// an error naming it when it does not exist; else [`ShellConfig::detect`].
    pub fn resolve(custom: Option<&str>) -> Result<Self, ShellNotFound> {
        match custom.filter(|c| !c.is_empty()) {
            Some(path) if Path::new(path).exists() => Ok(Self {
                program: PathBuf::from(path),
                args: vec!["-c".to_owned()],
            }),
            Some(path) => Err(ShellNotFound(PathBuf::from(path))),
            None => Ok(Self::detect()),
        }
    }
}

/// The `shellPath` setting names a file that does not exist.
#[derive(Debug, Clone, thiserror::Error)]
#[error("Custom shell path not found: {}", .0.display())]
pub struct ShellNotFound(pub PathBuf);

/// The `bash` tool.
#[derive(Debug)]
pub struct BashTool {
    cwd: PathBuf,
    shell: Result<ShellConfig, ShellNotFound>,
    command_prefix: Option<String>,
    parameters: Value,
}

/// The arguments of `bash`, as the model sends them (opaque: built from
/// that JSON).
#[derive(Debug, Deserialize)]
pub struct BashArgs {
    command: String,
    timeout: Option<f64>,
}

/// `details` of partial results and of a truncated final result.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct BashDetails {
    #[serde(skip_serializing_if = "Option::is_none")]
    truncation: Option<TruncationResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    full_output_path: Option<String>,
}

impl BashDetails {
    fn of(snapshot: &OutputSnapshot) -> Self {
        Self {
            truncation: snapshot
                .truncation
                .truncated
                .then(|| snapshot.truncation.clone()),
            full_output_path: snapshot
                .full_output_path
                .as_ref()
                .map(|p| p.display().to_string()),
        }
    }
}

/// How the command ended.
enum Outcome {
    Exited(Option<i32>),
    TimedOut,
    Aborted,
}

impl BashTool {
    /// A bash tool running commands in `cwd` with [`ShellConfig::detect`].
    pub fn new(cwd: &Path) -> Self {
        Self::with_shell(cwd, ShellConfig::detect())
    }

    /// A bash tool running commands in `cwd` with the given shell.
    pub fn with_shell(cwd: &Path, shell: ShellConfig) -> Self {
        Self::build(cwd, Ok(shell), None)
    }

    /// A bash tool with the settings' `shellPath` and `shellCommandPrefix`
    /// (a missing shell fails each call, as in pi).
    pub fn with_settings(cwd: &Path, shell_path: Option<&str>, prefix: Option<String>) -> Self {
        Self::build(cwd, ShellConfig::resolve(shell_path), prefix)
    }

    fn build(
        cwd: &Path,
        shell: Result<ShellConfig, ShellNotFound>,
        command_prefix: Option<String>,
    ) -> Self {
        Self {
            cwd: cwd.to_path_buf(),
            shell,
            command_prefix: command_prefix.filter(|p| !p.is_empty()),
            parameters: json!({
                "type": "object",
                "required": ["command"],
                "properties": {
                    "command": {
                        "type": "string",
                        "description": "The shell command line to run"
                    },
                    "timeout": {
                        "type": "number",
                        "description": "Seconds after which the command is killed (no limit when left out)"
                    }
                }
            }),
        }
    }
}

#[async_trait]
impl TypedTool for BashTool {
    type Args = BashArgs;

    fn name(&self) -> &str {
        "bash"
    }

    fn description(&self) -> &str {
        "Run a shell command in the working directory and get its stdout and stderr. Only \
         the last 2000 lines or 50KB of output are returned (whichever limit comes first); \
         longer output is saved in full to a temp file whose path is given. Pass timeout (in \
         seconds) to kill a command that may run too long."
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    fn argument_conversion(&self) -> ArgumentConversion {
        ArgumentConversion::TypeBox
    }

    async fn run(
        &self,
        _call_id: &str,
        args: BashArgs,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        let shell = self
            .shell
            .as_ref()
            .map_err(|e| ToolError::new(e.to_string()))?;
        let command = match &self.command_prefix {
            Some(prefix) => format!("{prefix}\n{}", args.command),
            None => args.command.clone(),
        };
        if !self.cwd.is_dir() {
            return Err(ToolError::new(format!(
                "Working directory does not exist: {}\nCannot execute bash commands.",
                self.cwd.display()
            )));
        }
        if cancel.is_cancelled() {
            return Err(ToolError::new("Command aborted"));
        }
        on_update(AgentToolResult {
            content: Vec::new(),
            details: Value::Null,
            terminate: None,
        });

        let timeout = args
            .timeout
            .filter(|t| *t > 0.0)
            .and_then(|t| Duration::try_from_secs_f64(t).ok());
        let mut output = OutputAccumulator::new();
        let outcome = run(
            shell,
            &self.cwd,
            &command,
            timeout,
            &cancel,
            &on_update,
            &mut output,
        )
        .await;
        let snapshot = output.snapshot();
        output.close().await;
        let outcome = outcome?;

        let text = format_output(&snapshot);
        let join = |suffix: String| {
            if text.is_empty() {
                suffix
            } else {
                format!("{text}\n\n{suffix}")
            }
        };
        match outcome {
            Outcome::Aborted => Err(ToolError::new(join("Command aborted".to_owned()))),
            Outcome::TimedOut => Err(ToolError::new(join(format!(
                "Command timed out after {} seconds",
                args.timeout.unwrap_or_default()
            )))),
            Outcome::Exited(code) => {
                let text = if text.is_empty() {
                    "(no output)".to_owned()
                } else {
                    text
                };
                match code {
                    Some(code) if code != 0 => Err(ToolError::new(format!(
                        "{text}\n\nCommand exited with code {code}"
                    ))),
                    Some(_) | None if snapshot.truncation.truncated => {
                        Ok(AgentToolResult::with_details(
                            vec![UserBlock::text(text)],
                            &BashDetails::of(&snapshot),
                        ))
                    }
                    Some(_) | None => Ok(AgentToolResult::text(text)),
                }
            }
        }
    }
}

/// The kept output plus pi's notice when it was truncated; empty when
/// there was no output.
fn format_output(snapshot: &OutputSnapshot) -> String {
    let t = &snapshot.truncation;
    let mut text = t.content.clone();
    if !t.truncated {
        return text;
    }
    let path = snapshot
        .full_output_path
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let end = t.total_lines;
    let start = end + 1 - t.output_lines.min(end);
    if t.last_line_partial {
        text.push_str(&format!(
            "\n\n[Showing last {} of line {end} (line is {}). Full output: {path}]",
            format_size(t.output_bytes),
            format_size(snapshot.last_line_bytes)
        ));
    } else {
        let limit = match t.truncated_by {
            Some(TruncatedBy::Bytes) => format!(" ({} limit)", format_size(DEFAULT_MAX_BYTES)),
            Some(TruncatedBy::Lines) | None => String::new(),
        };
        text.push_str(&format!(
            "\n\n[Showing lines {start}-{end} of {end}{limit}. Full output: {path}]"
        ));
    }
    text
}

/// Kills a process group with SIGKILL when dropped while armed, so a
/// cancelled (dropped) call leaves no processes behind.
struct GroupGuard {
    pgid: Option<Pid>,
}

impl GroupGuard {
    fn kill(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            // ESRCH (the group is already gone) is fine.
            let _ = killpg(pgid, Signal::SIGKILL);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Spawns the command and pumps its output until it ends, is killed by the
/// timeout, or the call is cancelled.
async fn run(
    shell: &ShellConfig,
    cwd: &Path,
    command: &str,
    timeout: Option<Duration>,
    cancel: &CancellationToken,
    on_update: &ToolUpdateFn,
    output: &mut OutputAccumulator,
) -> Result<Outcome, ToolError> {
    let mut child = Command::new(&shell.program)
        .args(&shell.args)
        .arg(command)
        .current_dir(cwd)
        .env(super::PI_CODING_AGENT_ENV, "true")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| ToolError::new(format!("Failed to start {}: {e}", shell.program.display())))?;
    let mut guard = GroupGuard {
        pgid: child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Pid::from_raw),
    };
    let (Some(mut stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(ToolError::new("Failed to capture the command's output"));
    };

    let far = Instant::now() + Duration::from_secs(86_400 * 365);
    let deadline = timeout.map(|t| Instant::now() + t);
    let mut out_buf = vec![0u8; 16 * 1024];
    let mut err_buf = vec![0u8; 16 * 1024];
    let (mut out_open, mut err_open) = (true, true);
    let mut status: Option<Option<i32>> = None;
    let mut drain_until: Option<Instant> = None;
    let mut killed: Option<Outcome> = None;
    // The empty update sent before the command started counts as the last
    // one: output of a command that ends within the interval arrives as one
    // final update (as pi's throttle does), longer runs stream every 100 ms.
    let mut last_update: Option<Instant> = Some(Instant::now());
    let mut dirty = false;

    let emit = |output: &OutputAccumulator, last_update: &mut Option<Instant>| {
        let snapshot = output.snapshot();
        on_update(AgentToolResult::with_details(
            vec![UserBlock::text(snapshot.truncation.content.clone())],
            &BashDetails::of(&snapshot),
        ));
        *last_update = Some(Instant::now());
    };

    while out_open || err_open || status.is_none() {
        let next_update = last_update.map_or_else(Instant::now, |t| t + UPDATE_INTERVAL);
        // (from stdout?, bytes read)
        let mut got: Option<(bool, usize)> = None;
        tokio::select! {
            read = stdout.read(&mut out_buf), if out_open => match read {
                Ok(n) if n > 0 => got = Some((true, n)),
                Ok(_) | Err(_) => out_open = false,
            },
            read = stderr.read(&mut err_buf), if err_open => match read {
                Ok(n) if n > 0 => got = Some((false, n)),
                Ok(_) | Err(_) => err_open = false,
            },
            exit = child.wait(), if status.is_none() => {
                let exit = exit.map_err(|e| ToolError::new(format!("Failed to wait for the command: {e}")))?;
                status = Some(exit.code());
                drain_until = Some(Instant::now() + DRAIN_GRACE);
                if killed.is_none() {
                    // Background jobs the command left running may keep going.
                    guard.pgid = None;
                }
            },
            () = tokio::time::sleep_until(drain_until.unwrap_or(far)), if drain_until.is_some() => break,
            () = tokio::time::sleep_until(deadline.unwrap_or(far)), if deadline.is_some() && killed.is_none() && status.is_none() => {
                guard.kill();
                killed = Some(Outcome::TimedOut);
            },
            () = cancel.cancelled(), if killed.is_none() && status.is_none() => {
                guard.kill();
                killed = Some(Outcome::Aborted);
            },
            () = tokio::time::sleep_until(next_update), if dirty => {
                dirty = false;
                emit(output, &mut last_update);
            },
        }
        if let Some((from_stdout, n)) = got {
            output.append(if from_stdout {
                &out_buf[..n]
            } else {
                &err_buf[..n]
            });
            dirty = true;
            if last_update.is_none_or(|t| t.elapsed() >= UPDATE_INTERVAL) {
                dirty = false;
                emit(output, &mut last_update);
            }
        }
    }
    if dirty {
        emit(output, &mut last_update);
    }
    Ok(killed.unwrap_or(Outcome::Exited(status.flatten())))
}

/// The outcome of a shell command run outside the agent loop (the user's
/// `!cmd` and rpc `bash`), with the same truncation and temp file as the tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellRun {
    /// The kept (tail of the) merged stdout/stderr.
    pub output: String,
    /// Exit code; `None` when killed.
    pub exit_code: Option<i32>,
    /// True when cancelled.
    pub cancelled: bool,
    /// True when `output` is only the tail.
    pub truncated: bool,
    /// The temp file with the complete output, when truncated.
    pub full_output_path: Option<PathBuf>,
}

/// Runs `command` in `cwd` with `shell` until it exits or `cancel` fires
/// (then the whole process group is killed). `on_output` gets the output so
/// far (its kept tail) while it runs, at most every 100 ms, as the bash
/// tool's updates.
pub async fn run_shell_command(
    shell: &ShellConfig,
    cwd: &Path,
    command: &str,
    cancel: &CancellationToken,
    on_output: &ToolUpdateFn,
) -> Result<ShellRun, ToolError> {
    let mut output = OutputAccumulator::new();
    let outcome = run(shell, cwd, command, None, cancel, on_output, &mut output).await;
    let snapshot = output.snapshot();
    output.close().await;
    let (exit_code, cancelled) = match outcome? {
        Outcome::Exited(code) => (code, false),
        Outcome::Aborted | Outcome::TimedOut => (None, true),
    };
    Ok(ShellRun {
        output: snapshot.truncation.content.clone(),
        exit_code,
        cancelled,
        truncated: snapshot.truncation.truncated,
        full_output_path: snapshot.full_output_path.clone(),
    })
}
