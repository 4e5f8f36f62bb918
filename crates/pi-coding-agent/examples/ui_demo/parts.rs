//! The `ui_demo` example's third extension: the terminal-only parts of
//! `ctx.ui()` (also run by `tests/it/extension_ui_tui.rs`).
//!
//! - `/demo-header [off]`: a header instead of `pi v…` (off: the built-in);
//! - `/demo-theme <name>`: switches the theme (and says which is current);
//! - `/demo-complete`: `#` completes to `#alpha`, `#beta`;
//! - `/demo-working [off]`: a `●` working indicator (off: the spinner);
//! - `/demo-keys`: F6 is swallowed and F7 types `seven` until the next
//!   `/demo-keys`;
//! - `/demo-vim [off]`: a one-line editor of the extension's own (Enter
//!   submits its text, Esc passes to the app).

use std::sync::{Arc, Mutex};

use pi_coding_agent::extensions::{
    AutocompleteProvider, CompletionItem, Completions, Extension, ExtensionApi, ExtensionComponent,
    ExtensionKey, NotifyLevel, RenderTheme, TerminalInput, TerminalInputHandle, WorkingIndicator,
};
use serde_json::Value;

/// The parts demo.
#[derive(Default)]
pub struct PartsDemo {
    keys: Arc<Mutex<Option<TerminalInputHandle>>>,
}

/// `#` words complete to the demo's tags.
struct Tags;

impl AutocompleteProvider for Tags {
    fn complete(&self, line: &str, cursor: usize) -> Option<Completions> {
        let before = line.get(..cursor)?;
        let word = before.rsplit(' ').next()?;
        let query = word.strip_prefix('#')?;
        let items: Vec<CompletionItem> = ["alpha", "beta"]
            .iter()
            .filter(|t| t.starts_with(query))
            .map(|t| CompletionItem {
                value: format!("#{t} "),
                label: format!("#{t}"),
            })
            .collect();
        (!items.is_empty()).then(|| Completions {
            prefix: word.to_owned(),
            items,
        })
    }
}

/// A one-line editor: typed characters, Backspace, Enter submits.
#[derive(Default)]
pub struct LineEditor {
    text: String,
}

impl ExtensionComponent for LineEditor {
    fn render(&mut self, width: usize, theme: &dyn RenderTheme) -> Vec<String> {
        let rule = "═".repeat(width);
        vec![
            theme.fg("accent", &rule),
            format!("vim> {}", self.text),
            theme.fg("accent", &rule),
        ]
    }

    fn handle_key(&mut self, key: &ExtensionKey) -> Option<Value> {
        if key.is("enter") {
            return Some(Value::String(std::mem::take(&mut self.text)));
        }
        if key.is("backspace") {
            self.text.pop();
        } else if let Some(text) = &key.text {
            self.text.push_str(text);
        } else {
            // Not the editor's: the app's bindings get it.
            return Some(Value::Null);
        }
        None
    }
}

impl Extension for PartsDemo {
    fn path(&self) -> String {
        "parts-demo".to_owned()
    }

    fn register(&self, api: &mut ExtensionApi) {
        api.register_command("demo-header", Some("A custom header"), |args, ctx| {
            let header: Option<pi_coding_agent::extensions::HeaderFn> = if args.trim() == "off" {
                None
            } else {
                Some(Arc::new(|_, theme: &dyn RenderTheme| {
                    vec![theme.fg("accent", "★ demo header ★")]
                }))
            };
            ctx.ui().set_header(header);
            async { Ok(()) }
        });
        api.register_command("demo-theme", Some("Switch the theme"), |args, ctx| {
            let ui = ctx.ui();
            match ui.set_theme(args.trim()) {
                Ok(()) => ui.notify(
                    &format!("Theme now {}", ui.theme_name().unwrap_or_default()),
                    Some(NotifyLevel::Info),
                ),
                Err(error) => ui.notify(
                    &format!("No theme: {error} (known: {})", ui.themes().join(", ")),
                    Some(NotifyLevel::Warning),
                ),
            }
            async { Ok(()) }
        });
        api.register_command("demo-complete", Some("# completes tags"), |_, ctx| {
            ctx.ui().add_autocomplete_provider(Arc::new(Tags));
            ctx.ui().notify("Tags ready", Some(NotifyLevel::Info));
            async { Ok(()) }
        });
        api.register_command("demo-working", Some("A dot while working"), |args, ctx| {
            let indicator = (args.trim() != "off").then(|| WorkingIndicator {
                frames: vec!["●".to_owned()],
                interval: None,
            });
            ctx.ui().set_working_indicator(indicator);
            async { Ok(()) }
        });
        let keys = Arc::clone(&self.keys);
        api.register_command(
            "demo-keys",
            Some("F6 swallowed, F7 types"),
            move |_, ctx| {
                let mut keys = keys
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                match keys.take() {
                    Some(handle) => {
                        handle.remove();
                        ctx.ui().notify("Keys off", Some(NotifyLevel::Info));
                    }
                    None => {
                        *keys = Some(ctx.ui().on_terminal_input(Arc::new(|key| {
                            if key.is("f6") {
                                TerminalInput::Consume
                            } else if key.is("f7") {
                                TerminalInput::Replace("seven".to_owned())
                            } else {
                                TerminalInput::Pass
                            }
                        })));
                        ctx.ui().notify("Keys on", Some(NotifyLevel::Info));
                    }
                }
                async { Ok(()) }
            },
        );
        api.register_command("demo-vim", Some("An editor of the demo"), |args, ctx| {
            let factory: Option<pi_coding_agent::extensions::EditorComponentFn> =
                (args.trim() != "off").then(|| {
                    Arc::new(|| Box::new(LineEditor::default()) as Box<dyn ExtensionComponent>)
                        as pi_coding_agent::extensions::EditorComponentFn
                });
            ctx.ui().set_editor_component(factory);
            async { Ok(()) }
        });
    }
}
