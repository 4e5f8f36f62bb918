//! Command-line flags, named as pi names them so scripts carry over.

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

/// How the binary talks to its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Print the final answer (default with `-p` or piped stdin).
    Text,
    /// Every agent event as one JSON line on stdout.
    Json,
    /// JSON-lines commands on stdin, responses and events on stdout.
    Rpc,
}

/// pi-rs: a coding agent for the terminal.
///
/// Runs the prompt(s) given as arguments with the tools read, bash, edit and write, saving the
/// conversation as a session under the agent dir (~/.pi/agent, or $PI_CODING_AGENT_DIR).
/// Arguments starting with @ attach files (`pi -p @src/main.rs "explain this"`).
#[derive(Debug, Clone, Parser)]
#[command(
    name = "pi",
    version = crate::VERSION,
    disable_version_flag = true,
    override_usage = "pi [OPTIONS] [@FILES...] [MESSAGES...]",
    after_help = super::help::AFTER_HELP
)]
pub struct Args {
    /// Prompts to send, in order; `@path` arguments attach files.
    #[arg(value_name = "MESSAGE")]
    pub messages: Vec<String>,

    /// Print mode: run the prompts to completion and print the final answer.
    #[arg(short = 'p', long)]
    pub print: bool,

    /// Output mode: text, json (event stream) or rpc (JSON-lines protocol on stdin/stdout).
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,

    /// Provider name (anthropic, openai, google, or one from models.json).
    #[arg(long)]
    pub provider: Option<String>,

    /// Model id, `provider/id`, or part of a model name.
    #[arg(long, value_parser = non_empty_model)]
    pub model: Option<String>,

    /// API key for this run (overrides auth.json and the environment).
    #[arg(long)]
    pub api_key: Option<String>,

    /// Thinking level: off, minimal, low, medium, high, xhigh (another value is
    /// ignored with a warning).
    #[arg(long, value_name = "LEVEL")]
    pub thinking: Option<String>,

    /// Comma-separated model patterns (globs like `anthropic/*`, optional `:level`)
    /// that scope model cycling; default: the `enabledModels` setting.
    #[arg(long, value_name = "PATTERNS", value_parser = parse_list)]
    pub models: Option<std::vec::Vec<String>>,

    /// Replace the built-in system prompt (text, or a path to a file).
    #[arg(long, value_name = "TEXT")]
    pub system_prompt: Option<String>,

    /// Append to the system prompt (text, or a path to a file); repeatable.
    #[arg(long, value_name = "TEXT")]
    pub append_system_prompt: Vec<String>,

    /// Load an extension file or directory; repeatable (loaded even with
    /// `--no-extensions`).
    #[arg(short = 'e', long = "extension", value_name = "PATH")]
    pub extensions: Vec<String>,

    /// Do not discover extensions (`-e` paths still load). Short: -ne.
    #[arg(long)]
    pub no_extensions: bool,

    /// Load a skill file or directory; repeatable.
    #[arg(long = "skill", value_name = "PATH")]
    pub skills: Vec<String>,

    /// Do not discover skills (`--skill` paths still load). Short: -ns.
    #[arg(long)]
    pub no_skills: bool,

    /// Load a prompt template file or directory; repeatable.
    #[arg(long = "prompt-template", value_name = "PATH")]
    pub prompt_templates: Vec<String>,

    /// Do not discover prompt templates (`--prompt-template` paths still load). Short: -np.
    #[arg(long)]
    pub no_prompt_templates: bool,

    /// Do not load AGENTS.md / CLAUDE.md context files. Short: -nc.
    #[arg(long)]
    pub no_context_files: bool,

    /// Comma-separated tools to enable (read,bash,edit,write,grep,find,ls).
    #[arg(short = 't', long, value_name = "LIST", value_parser = parse_list)]
    pub tools: Option<std::vec::Vec<String>>,

    /// Disable all tools. Short: -nt.
    #[arg(long)]
    pub no_tools: bool,

    /// Disable the built-in tools unless `--tools` names them. Short: -nbt.
    #[arg(long)]
    pub no_builtin_tools: bool,

    /// Continue the most recent session of this directory.
    #[arg(short = 'c', long = "continue")]
    pub continue_session: bool,

    /// Pick a session to resume (needs a terminal; use --session for a given one).
    #[arg(short = 'r', long)]
    pub resume: bool,

    /// Copy a session (file path, or id or id prefix) into a new session and continue there.
    #[arg(long, value_name = "PATH|ID")]
    pub fork: Option<String>,

    /// Use this session file (a path, or a session id or id prefix).
    #[arg(long, value_name = "PATH|ID")]
    pub session: Option<String>,

    /// Directory holding the session files (default:
    /// `<agent dir>/sessions/--<cwd>--`).
    #[arg(
        long,
        value_name = "DIR",
        help = "Directory holding the session files (default: <agent dir>/sessions/--<cwd>--)."
    )]
    pub session_dir: Option<PathBuf>,

    /// Do not save the session.
    #[arg(long)]
    pub no_session: bool,

    /// Load a theme file or directory (can be used multiple times).
    #[arg(long = "theme", value_name = "PATH")]
    pub themes: Vec<PathBuf>,

    /// Disable theme discovery and loading (only --theme paths are used).
    #[arg(long)]
    pub no_themes: bool,

    /// Write a session file as HTML (to the first MESSAGE, else
    /// `pi-session-<name>.html`) and exit.
    #[arg(
        long,
        value_name = "FILE",
        help = "Write a session file as HTML (to the first MESSAGE, else pi-session-<name>.html) and exit."
    )]
    pub export: Option<PathBuf>,

    /// Upload a session file's HTML page as a secret GitHub gist (`gh`) and exit.
    #[arg(
        long,
        value_name = "FILE",
        help = "Upload a session file's HTML page as a secret GitHub gist (gh gist create) and print its link."
    )]
    pub share: Option<PathBuf>,

    /// Verbose startup (overrides the quietStartup setting).
    #[arg(long)]
    pub verbose: bool,

    /// No network use at startup (same as PI_OFFLINE=1).
    #[arg(long)]
    pub offline: bool,

    /// Seconds to wait for a provider's response headers and, mid-stream, for more data.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub http_timeout: Option<std::time::Duration>,

    /// List the available models (optionally only those matching SEARCH) and exit.
    #[arg(long, value_name = "SEARCH", num_args = 0..=1, default_missing_value = "")]
    pub list_models: Option<String>,

    /// Print the version and exit.
    #[arg(short = 'v', long)]
    pub version: bool,
}

/// A comma-separated list, items trimmed, empty ones dropped (as pi's `--tools`).
fn parse_list(text: &str) -> Result<Vec<String>, std::convert::Infallible> {
    Ok(text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect())
}

/// pi's multi-letter short flags and the long flags they stand for.
const SHORT_ALIASES: [(&str, &str); 6] = [
    ("-ns", "--no-skills"),
    ("-ne", "--no-extensions"),
    ("-np", "--no-prompt-templates"),
    ("-nc", "--no-context-files"),
    ("-nt", "--no-tools"),
    ("-nbt", "--no-builtin-tools"),
];

/// The command line with pi's multi-letter short flags (`-ns`, `-np`,
/// `-nc`, `-nt`, `-nbt`) spelled long, for clap.
pub fn expand_short_flags<I: IntoIterator<Item = std::ffi::OsString>>(
    args: I,
) -> Vec<std::ffi::OsString> {
    args.into_iter()
        .map(|arg| {
            SHORT_ALIASES
                .iter()
                .find(|(short, _)| arg == *short)
                .map_or(arg, |(_, long)| (*long).into())
        })
        .collect()
}

/// pi's warning for a `--thinking` value it does not know (the flag is then ignored).
pub fn invalid_thinking_warning(level: &str) -> Option<String> {
    let valid = pi_ai::ThinkingLevel::SETTING_NAMES;
    (!valid.contains(&level)).then(|| {
        format!(
            "Invalid thinking level \"{level}\". Valid values: {}",
            valid.join(", ")
        )
    })
}

impl Args {
    /// The effective mode: `--mode`, else text.
    pub fn effective_mode(&self) -> Mode {
        self.mode.unwrap_or(Mode::Text)
    }
}

/// A positive number of seconds (fractions allowed).
fn parse_seconds(text: &str) -> Result<std::time::Duration, &'static str> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|secs| secs.is_finite() && *secs > 0.0 && *secs < 1e9)
        .map(std::time::Duration::from_secs_f64)
        .ok_or("expected a positive number of seconds")
}

/// An empty `--model`.
#[derive(Debug, thiserror::Error)]
#[error(
    "the model is empty; give a model id, provider/id or part of a model name (see --list-models)"
)]
struct EmptyModel;

/// `--model` must name a model: an empty pattern would match any model
/// (pi ignores an empty `--model` silently and runs its default model).
fn non_empty_model(value: &str) -> Result<String, EmptyModel> {
    if value.trim().is_empty() {
        return Err(EmptyModel);
    }
    Ok(value.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pi_fixture_command_lines_parse() {
        let args = Args::try_parse_from([
            "pi",
            "--session-dir",
            "/s",
            "-c",
            "-p",
            "--model",
            "mock-oai/mock-gpt",
            "What is the code word?",
        ])
        .unwrap();
        assert!(args.print && args.continue_session);
        assert_eq!(args.model.as_deref(), Some("mock-oai/mock-gpt"));
        assert_eq!(args.session_dir, Some(PathBuf::from("/s")));
        assert_eq!(args.messages, ["What is the code word?"]);

        let args =
            Args::try_parse_from(["pi", "--mode", "json", "--tools", "read,ls", "hi"]).unwrap();
        assert_eq!(args.effective_mode(), Mode::Json);
        assert_eq!(args.tools, Some(vec!["read".to_owned(), "ls".to_owned()]));

        let args = Args::try_parse_from(expand_short_flags(
            [
                "pi",
                "-ns",
                "-np",
                "-nc",
                "--skill",
                "a",
                "--skill",
                "b",
                "--prompt-template",
                "t.md",
                "--append-system-prompt",
                "x",
                "--append-system-prompt",
                "y",
            ]
            .map(std::ffi::OsString::from),
        ))
        .unwrap();
        assert!(args.no_skills && args.no_prompt_templates && args.no_context_files);
        assert_eq!(args.skills, ["a", "b"]);
        assert_eq!(args.prompt_templates, ["t.md"]);
        assert_eq!(args.append_system_prompt, ["x", "y"]);

        let args = Args::try_parse_from(["pi", "--list-models"]).unwrap();
        assert_eq!(args.list_models.as_deref(), Some(""));
        // `-r` takes no value: what follows is a message, never a session id.
        let args = Args::try_parse_from(["pi", "-r", "0195abcd", "-p"]).unwrap();
        assert!(args.resume && args.print);
        assert_eq!(args.messages, ["0195abcd"]);

        let args = Args::try_parse_from(expand_short_flags(
            [
                "pi",
                "-t",
                "read, ls,",
                "-nbt",
                "--fork",
                "abc",
                "--models",
                "a/*, *b*:high",
                "--verbose",
                "--offline",
                "--export",
                "s.jsonl",
                "out.html",
            ]
            .map(std::ffi::OsString::from),
        ))
        .unwrap();
        assert_eq!(args.tools, Some(vec!["read".to_owned(), "ls".to_owned()]));
        assert!(args.no_builtin_tools && args.verbose && args.offline);
        assert_eq!(args.fork.as_deref(), Some("abc"));
        assert_eq!(
            args.models,
            Some(vec!["a/*".to_owned(), "*b*:high".to_owned()])
        );
        assert_eq!(args.export, Some(PathBuf::from("s.jsonl")));
        assert_eq!(args.messages, ["out.html"]);
    }

    #[test]
    fn bad_thinking_levels_are_named_as_pi_names_them() {
        assert_eq!(invalid_thinking_warning("high"), None);
        assert_eq!(
            invalid_thinking_warning("bogus").as_deref(),
            Some(
                "Invalid thinking level \"bogus\". Valid values: off, minimal, low, medium, high, xhigh"
            )
        );
    }
}
