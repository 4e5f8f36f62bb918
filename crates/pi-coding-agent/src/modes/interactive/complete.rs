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

/// The slash commands with their descriptions.
pub const COMMANDS: [(&str, &str); 20] = [
    (
        "clone",
        "Duplicate the current session at the current position",
    ),
    ("compact", "Manually compact the session context"),
    ("copy", "Copy last agent message to clipboard"),
    (
        "export",
        "Export session (HTML default, or specify path: .html/.jsonl)",
    ),
    ("fork", "Create a new fork from a previous user message"),
    ("hotkeys", "Show all keyboard shortcuts"),
    ("import", "Import and resume a session from a JSONL file"),
    ("login", "Configure provider authentication"),
    ("logout", "Remove provider authentication"),
    ("model", "Select model (opens selector UI)"),
    ("name", "Set session display name"),
    ("new", "Start a new session"),
    ("quit", "Quit pi"),
    ("reload", "Reload keybindings and themes"),
    ("resume", "Resume a different session"),
    ("scoped-models", "Enable/disable models for Ctrl+P cycling"),
    ("session", "Show session info and stats"),
    ("settings", "Open settings menu"),
    ("share", "Share session as a secret GitHub gist"),
    ("tree", "Navigate session tree (switch branches)"),
];

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
}

impl Completer {
    /// Completions for a session in `cwd`.
    pub fn new(cwd: PathBuf) -> Self {
        Self {
            cwd,
            models: Vec::new(),
            extension_commands: Arc::new(Vec::new),
            providers: AutocompleteProviders::default(),
        }
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

    /// The `/` menu for `query`: built-in commands, then the extensions'.
    fn command_items(&self, query: &str) -> Vec<CompletionItem> {
        let extension_commands = self.extension_commands();
        let commands = COMMANDS
            .iter()
            .map(|(name, description)| (*name, Some(*description)))
            .chain(
                extension_commands
                    .iter()
                    .map(|c| (c.name.as_str(), c.description.as_deref())),
            );
        let mut items: Vec<(bool, CompletionItem)> = commands
            .filter(|(name, _)| fuzzy(name, query))
            .map(|(name, description)| {
                let mut item = CompletionItem::new(format!("/{name}")).with_label(name);
                if let Some(description) = description {
                    item = item.with_description(description);
                }
                (!name.starts_with(query), item)
            })
            .collect();
        // Prefix matches first, each group in the list's order.
        items.sort_by_key(|(later, _)| *later);
        items.into_iter().map(|(_, item)| item).collect()
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
        // Prefix matches first, then the other fuzzy matches (c…o).
        assert_eq!(values, ["/compact", "/copy", "/clone", "/scoped-models"]);
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
}
