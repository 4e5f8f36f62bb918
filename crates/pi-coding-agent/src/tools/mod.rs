//! The coding agent's tools as [`TypedTool`]s (so [`AgentTool`]s): `read`, `bash`, `edit`,
//! `write`, `grep`, `find` and `ls`, all working relative to one working
//! directory (absolute paths and `~` accepted).
//!
//! Names, parameter names, types and required lists are exactly pi's (so
//! sessions and prompts carry over); descriptions are our own. Output limits,
//! notices and error texts follow pi 0.73 byte for byte, because the model
//! reads them.

mod bash;
mod bash_output;
mod edit;
pub mod edit_diff;
mod find;
mod grep;
pub mod image_resize;
mod ls;
mod mutation_queue;
pub mod path;
mod read;
mod read_lines;
pub mod truncate;
mod write;

pub(crate) use read::image_mime_type;

use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[cfg(doc)]
use pi_agent_core::TypedTool;
use pi_agent_core::{AgentTool, AgentToolResult, ToolError};
use pi_ai::CancellationToken;

pub use bash::{BashArgs, BashTool, ShellConfig, ShellRun, run_shell_command};
pub use edit::{EditArgs, EditTool, preview_diff};
pub use find::{FindArgs, FindTool};
pub use grep::{GrepArgs, GrepTool};
pub use ls::{LsArgs, LsTool};
pub use read::{NON_VISION_IMAGE_NOTE, ReadArgs, ReadTool};
pub use write::{WriteArgs, WriteTool};

/// Set to `true` in the environment of every command the app runs (as pi
/// does), so scripts can tell they run under the coding agent.
pub const PI_CODING_AGENT_ENV: &str = "PI_CODING_AGENT";

/// The tools a session gets unless `--tools` / `--no-tools` say otherwise.
pub const DEFAULT_TOOLS: [&str; 4] = ["read", "bash", "edit", "write"];

/// Every built-in tool, in pi's order.
pub const ALL_TOOLS: [&str; 7] = ["read", "bash", "edit", "write", "grep", "find", "ls"];

/// The error text of a tool stopped by the run's cancellation (pi's wording).
pub(crate) const OPERATION_ABORTED: &str = "Operation aborted";

/// A tool set that cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolSetError {
    /// A name that is not a built-in tool.
    #[error("Unknown tool \"{0}\". Available tools: read, bash, edit, write, grep, find, ls")]
    UnknownTool(String),
}

/// Asks whether the model the session currently talks to takes image
/// input (pi's `ctx.model.input.includes("image")`); `None` when no model is
/// known. Asked at each call, so a model switch is seen at once.
#[derive(Clone)]
pub struct ImageInputProbe(Arc<dyn Fn() -> Option<bool> + Send + Sync>);

impl ImageInputProbe {
    /// A probe backed by `probe`.
    pub fn new(probe: impl Fn() -> Option<bool> + Send + Sync + 'static) -> Self {
        Self(Arc::new(probe))
    }

    /// Whether the current model takes images (`None`: no model known).
    pub fn supports_images(&self) -> Option<bool> {
        (self.0)()
    }
}

impl std::fmt::Debug for ImageInputProbe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ImageInputProbe")
    }
}

/// What the tools may know of the session beyond the working directory.
#[derive(Debug, Clone, Default)]
pub struct ToolOptions {
    /// Tells `read` whether the current model takes images.
    pub image_input: Option<ImageInputProbe>,
    /// `read` sends images as they are (pi's `images.autoResize: false`);
    /// by default they are fitted to pi's size limits.
    pub no_image_resize: bool,
    /// `shellPath`: the shell `bash` runs commands with (instead of detecting one).
    pub shell_path: Option<String>,
    /// `shellCommandPrefix`: put (with a newline) before every `bash` command.
    pub command_prefix: Option<String>,
}

/// Builds the named tools, in the order given, working in `cwd`.
pub fn create_tools(cwd: &Path, names: &[&str]) -> Result<Vec<Arc<dyn AgentTool>>, ToolSetError> {
    create_tools_with_options(cwd, names, &ToolOptions::default())
}

/// Builds the named tools with `options`, in the order given, working in `cwd`.
pub fn create_tools_with_options(
    cwd: &Path,
    names: &[&str],
    options: &ToolOptions,
) -> Result<Vec<Arc<dyn AgentTool>>, ToolSetError> {
    names
        .iter()
        .map(|name| create_tool_with_options(cwd, name, options))
        .collect()
}

/// Builds one built-in tool by name.
pub fn create_tool(cwd: &Path, name: &str) -> Result<Arc<dyn AgentTool>, ToolSetError> {
    create_tool_with_options(cwd, name, &ToolOptions::default())
}

/// Builds one built-in tool by name, with `options`.
pub fn create_tool_with_options(
    cwd: &Path,
    name: &str,
    options: &ToolOptions,
) -> Result<Arc<dyn AgentTool>, ToolSetError> {
    let tool: Arc<dyn AgentTool> = match name {
        "read" => Arc::new(
            ReadTool::with_image_input(cwd, options.image_input.clone())
                .with_image_resize(!options.no_image_resize),
        ),
        "bash" => Arc::new(BashTool::with_settings(
            cwd,
            options.shell_path.as_deref(),
            options.command_prefix.clone(),
        )),
        "edit" => Arc::new(EditTool::new(cwd)),
        "write" => Arc::new(WriteTool::new(cwd)),
        "grep" => Arc::new(GrepTool::new(cwd)),
        "find" => Arc::new(FindTool::new(cwd)),
        "ls" => Arc::new(LsTool::new(cwd)),
        other => return Err(ToolSetError::UnknownTool(other.to_owned())),
    };
    Ok(tool)
}

/// A one-line description of a built-in tool for the system prompt's tool
/// list; `None` for names that are not built-in tools.
pub fn tool_summary(name: &str) -> Option<&'static str> {
    Some(match name {
        "read" => "Read a text file (or view an image)",
        "bash" => "Run shell commands in the working directory",
        "edit" => "Change a file by replacing exact snippets of text",
        "write" => "Create a file or replace its whole content",
        "grep" => "Search file contents with a regex or literal text (honours .gitignore)",
        "find" => "List files whose paths match a glob (honours .gitignore)",
        "ls" => "List the entries of a directory",
        _ => return None,
    })
}

/// A JSON number argument as a count: fractions are dropped, negative,
/// infinite and NaN values give 0 (JavaScript's truncation in array slices).
pub(crate) fn to_count(value: f64) -> usize {
    if value.is_finite() && value > 0.0 {
        // Truncation toward zero is the intent; values past usize::MAX saturate.
        value.trunc() as usize
    } else {
        0
    }
}

/// A result with one text block and no details.
pub(crate) fn text_result(text: impl Into<String>) -> AgentToolResult {
    AgentToolResult::text(text)
}

/// Set when the tool's call is cancelled; blocking work polls it to stop early.
#[derive(Debug, Clone, Default)]
pub(crate) struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// Whether the call was cancelled.
    pub(crate) fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Runs blocking file-system work off the async runtime. Cancellation
/// answers `Operation aborted` at once and raises the flag so the work can
/// stop early.
pub(crate) async fn run_blocking<T, F>(cancel: &CancellationToken, work: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce(StopFlag) -> Result<T, ToolError> + Send + 'static,
{
    if cancel.is_cancelled() {
        return Err(ToolError::new(OPERATION_ABORTED));
    }
    let stop = StopFlag::default();
    let flag = stop.clone();
    let handle = tokio::task::spawn_blocking(move || work(flag));
    tokio::select! {
        biased;
        () = cancel.cancelled() => {
            stop.0.store(true, Ordering::Relaxed);
            Err(ToolError::new(OPERATION_ABORTED))
        }
        joined = handle => joined.map_err(|e| ToolError::new(format!("Tool task failed: {e}")))?,
    }
}

/// An I/O error worded like Node's (`ENOENT: no such file or directory,
/// open '/abs/path'`), which is what pi's tools report for the common cases.
pub(crate) fn node_io_error(error: &io::Error, syscall: &str, path: &Path) -> String {
    let code = match error.kind() {
        io::ErrorKind::NotFound => Some(("ENOENT", "no such file or directory")),
        io::ErrorKind::PermissionDenied => Some(("EACCES", "permission denied")),
        io::ErrorKind::IsADirectory => Some(("EISDIR", "illegal operation on a directory")),
        io::ErrorKind::NotADirectory => Some(("ENOTDIR", "not a directory")),
        io::ErrorKind::StorageFull => Some(("ENOSPC", "no space left on device")),
        io::ErrorKind::FileTooLarge => Some(("EFBIG", "file too large")),
        io::ErrorKind::QuotaExceeded => Some(("EDQUOT", "disk quota exceeded")),
        io::ErrorKind::ReadOnlyFilesystem => Some(("EROFS", "read-only file system")),
        _ => None,
    };
    match code {
        Some((code, text)) => format!("{code}: {text}, {syscall} '{}'", path.display()),
        None => format!("{error}: {syscall} '{}'", path.display()),
    }
}

/// A failed replacement of a file in Node's wording, naming the call and
/// the path that failed and, when it is so, that the file was not changed.
pub(crate) fn node_replace_error(error: &crate::file_replace::ReplaceError) -> String {
    let mut text = node_io_error(&error.source, error.step.syscall(), &error.path);
    if error.unchanged {
        text.push_str(&format!(" ({} was not changed)", error.target.display()));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_and_all_tool_sets() {
        let cwd = Path::new("/tmp");
        let tools = create_tools(cwd, &DEFAULT_TOOLS).unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
        assert_eq!(names, DEFAULT_TOOLS);
        let tools = create_tools(cwd, &ALL_TOOLS).unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
        assert_eq!(names, ALL_TOOLS);
        for tool in &tools {
            assert_eq!(tool.label(), tool.name());
            assert!(tool_summary(tool.name()).is_some());
            assert!(!tool.description().is_empty());
        }
        assert!(create_tools(cwd, &[]).unwrap().is_empty());
    }

    #[test]
    fn unknown_tool_is_an_error() {
        let err = create_tools(Path::new("/tmp"), &["read", "telnet"]).unwrap_err();
        assert_eq!(err, ToolSetError::UnknownTool("telnet".into()));
        assert_eq!(
            err.to_string(),
            "Unknown tool \"telnet\". Available tools: read, bash, edit, write, grep, find, ls"
        );
        assert_eq!(tool_summary("telnet"), None);
    }

    #[test]
    fn counts_truncate_like_javascript() {
        assert_eq!(to_count(2.9), 2);
        assert_eq!(to_count(-3.0), 0);
        assert_eq!(to_count(f64::NAN), 0);
    }

    #[test]
    fn io_errors_read_like_node() {
        let err = io::Error::from(io::ErrorKind::NotFound);
        assert_eq!(
            node_io_error(&err, "open", Path::new("/x/y")),
            "ENOENT: no such file or directory, open '/x/y'"
        );
    }
}
