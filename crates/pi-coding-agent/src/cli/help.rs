//! The end of `--help`: examples, environment variables and tool names.

/// Text printed after the option list of `--help`.
pub const AFTER_HELP: &str = "\
Commands:
  pi install <source> [-l]     Install a package (npm:, git:, URL or path) and add it to settings
  pi remove <source> [-l]      Remove a package and its source from settings
  pi uninstall <source> [-l]   Alias for remove
  pi update [source|self|pi]   Update installed packages (pi-rs says how to update itself)
  pi list                      List installed packages from settings
  pi config                    Open TUI to enable/disable package resources
  pi <command> --help          Show help for install/remove/uninstall/update/list

Examples:
  pi                                         interactive session
  pi \"List the .rs files in src/\"            interactive, with a first prompt
  pi @notes.md @shot.png \"What does it show?\" attach files to the first prompt
  pi -p \"Summarize README.md\"                 print the answer and exit
  pi -c \"Where were we?\"                      continue the last session here
  pi --provider openai --model gpt-4o-mini \"Refactor this\"
  pi --model anthropic/claude-sonnet-4-5:high \"Hard problem\"   model with a thinking level
  pi --models \"anthropic/*,*gpt*\"             scope model cycling with globs
  pi --thinking high \"Think it through\"
  pi --tools read,grep,find,ls -p \"Review src/\"   read-only tools
  pi --fork 0195ab \"Try another way\"          continue a copy of a session
  pi --export session.jsonl out.html          write a session as HTML
  pi --share session.jsonl                    upload it as a secret gist (gh)

Environment variables:
  ANTHROPIC_API_KEY / ANTHROPIC_OAUTH_TOKEN   Anthropic key or OAuth token
  OPENAI_API_KEY                              OpenAI
  AZURE_OPENAI_API_KEY                        Azure OpenAI
  GEMINI_API_KEY                              Google Gemini
  GROQ_API_KEY, CEREBRAS_API_KEY, XAI_API_KEY, OPENROUTER_API_KEY, AI_GATEWAY_API_KEY,
  ZAI_API_KEY, MISTRAL_API_KEY, MINIMAX_API_KEY, KIMI_API_KEY, OPENCODE_API_KEY
                                              keys of the other built-in providers
  PI_CODING_AGENT_DIR                         agent directory (default: ~/.pi/agent)
  PI_CODING_AGENT_SESSION_DIR                 session directory (--session-dir wins)
  PI_OFFLINE                                  1/true/yes: no network use at startup
  PI_LOG                                      log filter for stderr (default: error)

Built-in tools:
  read, bash, edit, write   on by default
  grep, find, ls            read-only, off by default (enable with --tools)
";

/// The `--help` lines of the flags extensions registered (empty when none).
pub fn extension_flags_help(flags: &[crate::extensions::RegisteredFlag]) -> String {
    if flags.is_empty() {
        return String::new();
    }
    let mut text = String::from("\nExtension flags:\n");
    for flag in flags {
        let usage = match flag.kind {
            crate::extensions::FlagKind::Boolean => format!("--{}", flag.name),
            crate::extensions::FlagKind::String => format!("--{} <value>", flag.name),
        };
        let description = flag.description.as_deref().unwrap_or_default();
        text.push_str(&format!("  {usage:<30} {description}\n"));
    }
    text
}
