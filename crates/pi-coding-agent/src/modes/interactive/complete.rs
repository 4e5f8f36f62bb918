//! The editor's completions: `/` commands at the start of the first line,
//! `/model <search>` arguments, `@` files (in-process walk, see
//! [`super::files`]), and Tab path completion of the word before the
//! cursor (directory listing).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pi_tui::editor::{
    AutocompleteProvider, CompletionItem, CompletionRequest, CompletionTrigger, Suggestions,
};

use super::files::file_suggestions;
use crate::extensions::{AutocompleteProviders, CompletionFn};

/// The slash commands with their descriptions, in pi's order.
pub const COMMANDS: [(&str, &str); 21] = [
    ("settings", "Open settings menu"),
    ("model", "Select model (opens selector UI)"),
    ("scoped-models", "Enable/disable models for Ctrl+P cycling"),
    (
        "export",
        "Export session (HTML default, or specify path: .html/.jsonl)",
    ),
    ("import", "Import and resume a session from a JSONL file"),
    ("share", "Share session as a secret GitHub gist"),
    ("copy", "Copy last agent message to clipboard"),
    ("name", "Set session display name"),
    ("session", "Show session info and stats"),
    ("changelog", "Show changelog entries"),
    ("hotkeys", "Show all keyboard shortcuts"),
    ("fork", "Create a new fork from a previous user message"),
    (
        "clone",
        "Duplicate the current session at the current position",
    ),
    ("tree", "Navigate session tree (switch branches)"),
    ("login", "Configure provider authentication"),
    ("logout", "Remove provider authentication"),
    ("new", "Start a new session"),
    ("compact", "Manually compact the session context"),
    ("resume", "Resume a different session"),
    (
        "reload",
        "Reload keybindings, extensions, skills, prompts, and themes",
    ),
    ("quit", "Quit pi"),
];

/// A prompt template or skill as the `/` menu offers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceCommand {
    /// Its name without the slash (`review`, `skill:pdf`).
    pub name: String,
    /// Shown next to it (source tag, argument hint, description).
    pub description: Option<String>,
}

/// The prompt templates and the skills (`None` for no skill commands) the
/// `/` menu offers now.
pub type ResourceCommandSource =
    Arc<dyn Fn() -> (Vec<ResourceCommand>, Vec<ResourceCommand>) + Send + Sync>;

/// pi's source tag of a resource in the `/` menu: `u`, `p` or `t` for its
/// scope, with the package source for npm and git packages.
pub fn source_tag(info: &crate::resources::discovery::SourceInfo) -> String {
    let scope = match info.scope.as_str() {
        "user" => "u",
        "project" => "p",
        _ => "t",
    };
    let source = info.source.trim();
    if matches!(source, "auto" | "local" | "cli") {
        return scope.to_owned();
    }
    if source.starts_with("npm:") {
        return format!("{scope}:{source}");
    }
    match crate::packages::source::parse_git(source) {
        Some(git) => {
            let git_ref = git.git_ref.map(|r| format!("@{r}")).unwrap_or_default();
            format!("{scope}:git:{}/{}{git_ref}", git.host, git.path)
        }
        None => scope.to_owned(),
    }
}

/// `[tag] description` (`[tag]` alone for an empty description), as pi
/// labels the templates and skills in the `/` menu.
fn tagged(tag: &str, description: &str) -> String {
    if description.is_empty() {
        format!("[{tag}]")
    } else {
        format!("[{tag}] {description}")
    }
}

/// The `/` menu's entries for the prompt templates and (when
/// `skill_commands`) the skills of `resources`, described as pi describes
/// them.
pub fn resource_commands(
    resources: &crate::resources::Resources,
    skill_commands: bool,
) -> (Vec<ResourceCommand>, Vec<ResourceCommand>) {
    let templates = resources
        .templates
        .templates
        .iter()
        .map(|t| {
            let description = tagged(&source_tag(&t.source_info), &t.description);
            let description = match t.argument_hint.as_deref().filter(|h| !h.is_empty()) {
                Some(hint) => format!("{hint} — {description}"),
                None => description,
            };
            ResourceCommand {
                name: t.name.clone(),
                description: Some(description),
            }
        })
        .collect();
    let skills = if skill_commands {
        resources
            .skills
            .skills
            .iter()
            .map(|s| ResourceCommand {
                name: format!("skill:{}", s.name),
                description: Some(tagged(&source_tag(&s.source_info), &s.description)),
            })
            .collect()
    } else {
        Vec::new()
    };
    (templates, skills)
}

/// A command an extension registered, as the `/` menu offers it.
#[derive(Clone)]
pub struct ExtensionCommand {
    /// Its name without the slash.
    pub name: String,
    /// Shown next to it.
    pub description: Option<String>,
    /// Completes its arguments.
    pub completions: Option<CompletionFn>,
}

/// The app's completion provider.
pub struct Completer {
    cwd: PathBuf,
    /// `provider/id` of the available models, for `/model` arguments.
    models: Vec<String>,
    /// The extensions' commands (after the built-in ones, which win), read
    /// when asked: extensions add commands while pi runs.
    extension_commands: Arc<dyn Fn() -> Vec<ExtensionCommand> + Send + Sync>,
    /// The completions extensions added, asked first.
    providers: AutocompleteProviders,
    /// The prompt templates and skills, read when asked (`/reload` changes them).
    resource_commands: ResourceCommandSource,
}

impl Completer {
    /// Completions for a session in `cwd`.
    pub fn new(cwd: PathBuf) -> Self {
        Self {
            cwd,
            models: Vec::new(),
            extension_commands: Arc::new(Vec::new),
            providers: AutocompleteProviders::default(),
            resource_commands: Arc::new(|| (Vec::new(), Vec::new())),
        }
    }

    /// Offers the prompt templates and skills `source` lists when asked.
    pub fn with_resource_command_source(mut self, source: ResourceCommandSource) -> Self {
        self.resource_commands = source;
        self
    }

    /// Asks the extensions' `providers` first (pi's
    /// `addAutocompleteProvider` wrappers around the built-in provider).
    pub fn with_providers(mut self, providers: AutocompleteProviders) -> Self {
        self.providers = providers;
        self
    }

    /// Offers the extensions' `commands` in the `/` menu (a name a
    /// built-in command has is left out, as pi does).
    pub fn with_extension_commands(self, commands: Vec<ExtensionCommand>) -> Self {
        self.with_extension_command_source(Arc::new(move || commands.clone()))
    }

    /// Offers the commands `source` lists when asked (those extensions
    /// registered so far).
    pub fn with_extension_command_source(
        mut self,
        source: Arc<dyn Fn() -> Vec<ExtensionCommand> + Send + Sync>,
    ) -> Self {
        self.extension_commands = source;
        self
    }

    /// The extensions' commands now, without those a built-in one shadows.
    fn extension_commands(&self) -> Vec<ExtensionCommand> {
        (self.extension_commands)()
            .into_iter()
            .filter(|c| !COMMANDS.iter().any(|(name, _)| *name == c.name))
            .collect()
    }

    /// The `/` menu for `query`, in pi's order: built-in commands, prompt
    /// templates, the extensions' commands, skills; filtered and ranked by
    /// pi's fuzzy match (the list's order for an empty query).
    fn command_items(&self, query: &str) -> Vec<CompletionItem> {
        let extension_commands = self.extension_commands();
        let (templates, skills) = (self.resource_commands)();
        let commands: Vec<(&str, Option<&str>)> = COMMANDS
            .iter()
            .map(|(name, description)| (*name, Some(*description)))
            .chain(
                templates
                    .iter()
                    .map(|c| (c.name.as_str(), c.description.as_deref())),
            )
            .chain(
                extension_commands
                    .iter()
                    .map(|c| (c.name.as_str(), c.description.as_deref())),
            )
            .chain(
                skills
                    .iter()
                    .map(|c| (c.name.as_str(), c.description.as_deref())),
            )
            .collect();
        pi_tui::fuzzy::fuzzy_filter(commands, query, |(name, _)| (*name).to_owned())
            .into_iter()
            .map(|(name, description)| {
                let item = CompletionItem::new(format!("/{name}")).with_label(name);
                match description.filter(|d| !d.is_empty()) {
                    Some(description) => item.with_description(description),
                    None => item,
                }
            })
            .collect()
    }

    /// An extension command's argument completions for `/name args`.
    fn argument_items(&self, before: &str) -> Option<Suggestions> {
        let (name, args) = before.strip_prefix('/')?.split_once(' ')?;
        let command = self
            .extension_commands()
            .into_iter()
            .find(|c| c.name == name)?;
        let items: Vec<CompletionItem> = (command.completions.as_ref()?)(args)?
            .into_iter()
            .map(|(value, label)| CompletionItem::new(value).with_label(label))
            .collect();
        (!items.is_empty()).then(|| Suggestions {
            prefix: args.to_owned(),
            items,
        })
    }

    /// Sets the models offered after `/model `.
    pub fn with_models(mut self, models: Vec<String>) -> Self {
        self.models = models;
        self
    }
}

/// True when every character of `query` appears in `text` in order (case-insensitive).
fn fuzzy(text: &str, query: &str) -> bool {
    let mut chars = text.chars().flat_map(char::to_lowercase);
    query
        .chars()
        .flat_map(char::to_lowercase)
        .all(|q| chars.any(|c| c == q))
}

/// The word before the cursor (after the last space).
fn last_word(before: &str) -> &str {
    before.rsplit([' ', '\t']).next().unwrap_or(before)
}

/// Directory entries completing `word` (`src/ma` -> `src/main.rs`).
fn path_items(cwd: &Path, word: &str) -> Vec<CompletionItem> {
    let (dir, prefix) = match word.rsplit_once('/') {
        Some((dir, prefix)) => (format!("{dir}/"), prefix),
        None => (String::new(), word),
    };
    let base = if let Some(rest) = dir.strip_prefix("~/") {
        dirs::home_dir().map(|h| h.join(rest))
    } else if dir.starts_with('/') {
        Some(PathBuf::from(&dir))
    } else {
        Some(cwd.join(&dir))
    };
    let Some(Ok(entries)) = base.map(std::fs::read_dir) else {
        return Vec::new();
    };
    let mut items: Vec<(bool, String)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            (name.starts_with(prefix) && (!name.starts_with('.') || prefix.starts_with('.')))
                .then_some((is_dir, name))
        })
        .collect();
    items.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    items
        .into_iter()
        .map(|(is_dir, name)| {
            let suffix = if is_dir { "/" } else { "" };
            CompletionItem::new(format!("{dir}{name}{suffix}"))
                .with_label(format!("{name}{suffix}"))
        })
        .collect()
}

impl AutocompleteProvider for Completer {
    fn suggest(&mut self, request: &CompletionRequest<'_>) -> Option<Suggestions> {
        let before = request.before_cursor();
        if let Some(line) = request.lines.get(request.line)
            && let Some(found) = self.providers.complete(line, request.col)
            && before.ends_with(&found.prefix)
        {
            let items = found
                .items
                .into_iter()
                .map(|i| CompletionItem::new(i.value).with_label(i.label))
                .collect();
            return Some(Suggestions {
                prefix: found.prefix,
                items,
            });
        }
        if request.line == 0 && before.starts_with('/') {
            if let Some(query) = before.strip_prefix("/model ") {
                let items: Vec<CompletionItem> = self
                    .models
                    .iter()
                    .filter(|m| fuzzy(m, query.trim()))
                    .take(20)
                    .map(|m| CompletionItem::new(format!("/model {m}")).with_label(m.as_str()))
                    .collect();
                return (!items.is_empty()).then(|| Suggestions {
                    prefix: before.to_owned(),
                    items,
                });
            }
            if let Some(suggestions) = self.argument_items(before) {
                return Some(suggestions);
            }
            if !before.contains(' ') {
                let items = self.command_items(&before[1..]);
                return (!items.is_empty()).then(|| Suggestions {
                    prefix: before.to_owned(),
                    items,
                });
            }
        }
        let word = last_word(before);
        if let Some(query) = word.strip_prefix('@') {
            let query = query.trim_start_matches('"');
            let items: Vec<CompletionItem> = file_suggestions(&self.cwd, query)
                .into_iter()
                .map(|s| {
                    let value = if s.is_dir {
                        s.value
                    } else {
                        format!("{} ", s.value)
                    };
                    CompletionItem::new(value)
                        .with_label(s.label)
                        .with_description(s.description)
                })
                .collect();
            return (!items.is_empty()).then(|| Suggestions {
                prefix: word.to_owned(),
                items,
            });
        }
        if request.trigger == CompletionTrigger::Tab {
            let items = path_items(&self.cwd, word);
            return (!items.is_empty()).then(|| Suggestions {
                prefix: word.to_owned(),
                items,
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(c: &mut Completer, text: &str, trigger: CompletionTrigger) -> Option<Suggestions> {
        let lines = vec![text.to_owned()];
        c.suggest(&CompletionRequest {
            lines: &lines,
            line: 0,
            col: text.len(),
            trigger,
        })
    }

    #[test]
    fn commands_files_and_paths() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "").unwrap();
        let mut c = Completer::new(dir.path().to_path_buf()).with_models(vec![
            "mock-oai/mock-gpt".into(),
            "mock-ant/mock-claude".into(),
        ]);

        let s = ask(&mut c, "/co", CompletionTrigger::Typing).unwrap();
        let values: Vec<&str> = s.items.iter().map(|i| i.value.as_str()).collect();
        // pi's fuzzy ranking (pi-tui's fuzzyFilter over pi's list gives this order).
        assert_eq!(
            values,
            [
                "/copy",
                "/compact",
                "/clone",
                "/scoped-models",
                "/changelog"
            ]
        );
        assert_eq!(s.prefix, "/co");

        let s = ask(&mut c, "/model claude", CompletionTrigger::Typing).unwrap();
        assert_eq!(s.items[0].value, "/model mock-ant/mock-claude");

        let s = ask(&mut c, "look at @mai", CompletionTrigger::Typing).unwrap();
        assert_eq!(s.prefix, "@mai");
        assert_eq!(s.items[0].value, "@src/main.rs ");

        let mut c = c.with_extension_commands(vec![
            ExtensionCommand {
                name: "deploy".into(),
                description: Some("Ship it".into()),
                completions: Some(std::sync::Arc::new(|prefix: &str| {
                    Some(vec![(format!("{prefix}prod"), "prod".into())])
                })),
            },
            ExtensionCommand {
                name: "new".into(),
                description: Some("shadowed by the built-in".into()),
                completions: None,
            },
        ]);
        let s = ask(&mut c, "/dep", CompletionTrigger::Typing).unwrap();
        assert_eq!(s.items[0].value, "/deploy");
        assert_eq!(s.items[0].description.as_deref(), Some("Ship it"));
        let s = ask(&mut c, "/ne", CompletionTrigger::Typing).unwrap();
        assert_eq!(s.items.iter().filter(|i| i.value == "/new").count(), 1);
        let s = ask(&mut c, "/deploy p", CompletionTrigger::Typing).unwrap();
        assert_eq!(
            (s.prefix.as_str(), s.items[0].value.as_str()),
            ("p", "pprod")
        );

        let s = ask(&mut c, "cat sr", CompletionTrigger::Tab).unwrap();
        assert_eq!(s.items[0].value, "src/");
        assert!(ask(&mut c, "plain words", CompletionTrigger::Typing).is_none());
    }

    #[test]
    fn templates_and_skills_follow_pi_order() {
        let command = |name: &str, description: &str| ResourceCommand {
            name: name.to_owned(),
            description: Some(description.to_owned()),
        };
        let mut c = Completer::new(std::env::temp_dir())
            .with_extension_commands(vec![ExtensionCommand {
                name: "deploy".into(),
                description: None,
                completions: None,
            }])
            .with_resource_command_source(Arc::new(move || {
                (
                    vec![command("review", "[p] Review the diff")],
                    vec![
                        command("skill:pdf-tools", "[u] PDFs"),
                        command("skill:changes", "[u] Changes"),
                    ],
                )
            }));
        let values = |c: &mut Completer, text: &str| -> Vec<String> {
            ask(c, text, CompletionTrigger::Typing)
                .map(|s| s.items.into_iter().map(|i| i.value).collect())
                .unwrap_or_default()
        };
        // What pi 0.73.1's fuzzyFilter gives over the same list (built-ins,
        // templates, extension commands, skills).
        let all = values(&mut c, "/");
        let tail: Vec<&str> = all[all.len() - 5..].iter().map(String::as_str).collect();
        assert_eq!(
            tail,
            [
                "/quit",
                "/review",
                "/deploy",
                "/skill:pdf-tools",
                "/skill:changes"
            ]
        );
        assert_eq!(all.len(), COMMANDS.len() + 4);
        assert_eq!(
            values(&mut c, "/re"),
            ["/resume", "/reload", "/review", "/tree", "/share"]
        );
        assert_eq!(values(&mut c, "/ch"), ["/changelog", "/skill:changes"]);
        let s = ask(&mut c, "/skill:pd", CompletionTrigger::Typing).unwrap();
        assert_eq!(s.items[0].description.as_deref(), Some("[u] PDFs"));
    }

    #[test]
    fn resource_commands_are_described_as_pi_does() {
        use crate::resources::discovery::SourceInfo;
        let info = |scope: &str, source: &str| SourceInfo {
            path: "/x".into(),
            source: source.into(),
            scope: scope.into(),
            origin: "top-level".into(),
            base_dir: None,
        };
        assert_eq!(source_tag(&info("user", "auto")), "u");
        assert_eq!(source_tag(&info("project", "local")), "p");
        assert_eq!(source_tag(&info("temporary", "cli")), "t");
        assert_eq!(source_tag(&info("user", "npm:pi-pack")), "u:npm:pi-pack");
        assert_eq!(
            source_tag(&info("project", "git:github.com/me/pack@v1")),
            "p:git:github.com/me/pack@v1"
        );
        assert_eq!(tagged("u", ""), "[u]");
        assert_eq!(tagged("u", "Does it"), "[u] Does it");
    }
}
