//! The terminal-only parts of `ctx.ui` through the whole `Ui`: header,
//! working indicator and visibility, theme, completions, terminal input
//! listeners and an extension's editor.

use std::sync::Arc;

use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pi_tui::theme::{ColorMode, Theme};
use serde_json::Value;

use super::Ui;
use crate::app::{SessionChoice, StartOptions, build_app};
use crate::extensions::{
    ExtensionComponent, ExtensionKey, ExtensionUi, RenderTheme, TerminalInput, WorkingIndicator,
};
use crate::modes::interactive::events::UiEvent;
use crate::modes::interactive::extension_ui::TerminalUi;

fn ui(
    dir: &std::path::Path,
) -> (
    Ui,
    TerminalUi,
    tokio::sync::mpsc::UnboundedReceiver<UiEvent>,
) {
    let agent_dir = dir.join("agent");
    std::fs::create_dir_all(&agent_dir).unwrap();
    let fixtures =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pi-0.73.1");
    std::fs::copy(fixtures.join("models.json"), agent_dir.join("models.json")).unwrap();
    let app = build_app(StartOptions {
        cwd: dir.to_path_buf(),
        model: Some("mock-oai/mock-gpt".into()),
        session: SessionChoice::InMemory,
        agent_dir: Some(agent_dir),
        ..StartOptions::default()
    })
    .unwrap();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let mut ui = Ui::new(app, Arc::new(Theme::dark(ColorMode::NoColor)), tx.clone());
    ui.look.themes = crate::themes::ThemeCatalog::discover(&crate::themes::ThemeSources::default());
    ui.sync_mirror();
    let terminal = TerminalUi::new(tx, Arc::clone(&ui.ext.mirror));
    (ui, terminal, rx)
}

/// Carries out every call the terminal UI sent.
fn pump(ui: &mut Ui, rx: &mut tokio::sync::mpsc::UnboundedReceiver<UiEvent>) {
    while let Ok(event) = rx.try_recv() {
        if let UiEvent::Extension(request) = &event {
            ui.extension_call(request);
        }
    }
    ui.sync_mirror();
}

fn screen(ui: &mut Ui) -> String {
    ui.view.reprint = true;
    let frame = ui.frame(40, 20);
    let mut lines = frame.commits;
    lines.extend(frame.live);
    lines.join("\n")
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[test]
fn header_replaces_and_restores_the_startup_header() {
    let dir = tempfile::tempdir().unwrap();
    let (mut ui, terminal, mut rx) = ui(dir.path());
    assert!(screen(&mut ui).contains("pi v"));
    terminal.set_header(Some(Arc::new(|_, _: &dyn RenderTheme| {
        vec!["MY HEADER".to_owned()]
    })));
    pump(&mut ui, &mut rx);
    let shown = screen(&mut ui);
    assert!(
        shown.contains("MY HEADER") && !shown.contains("pi v"),
        "{shown}"
    );
    terminal.set_header(None);
    pump(&mut ui, &mut rx);
    assert!(screen(&mut ui).contains("pi v"));
}

#[test]
fn working_indicator_and_visibility() {
    let dir = tempfile::tempdir().unwrap();
    let (mut ui, terminal, mut rx) = ui(dir.path());
    terminal.set_working_indicator(Some(WorkingIndicator {
        frames: vec!["@".into()],
        interval: None,
    }));
    pump(&mut ui, &mut rx);
    ui.status = ui.working_status();
    assert!(screen(&mut ui).contains("@ Working..."));
    terminal.set_working_visible(false);
    pump(&mut ui, &mut rx);
    assert!(!screen(&mut ui).contains("Working..."));
    terminal.set_working_visible(true);
    terminal.set_working_indicator(None);
    pump(&mut ui, &mut rx);
    assert!(screen(&mut ui).contains("⠋ Working..."));
}

#[test]
fn themes_are_listed_and_switched() {
    let dir = tempfile::tempdir().unwrap();
    let (mut ui, terminal, mut rx) = ui(dir.path());
    assert_eq!(terminal.theme_name().as_deref(), Some("dark"));
    let themes = terminal.themes();
    assert!(themes.contains(&"light".to_owned()), "{themes:?}");
    assert!(terminal.set_theme("no-such-theme").is_err());
    terminal.set_theme("light").unwrap();
    pump(&mut ui, &mut rx);
    assert_eq!(ui.theme.name(), "light");
    assert_eq!(terminal.theme_name().as_deref(), Some("light"));
}

/// Counts keys; Enter submits `done`, other keys without text pass.
#[derive(Default)]
struct Line(String);

impl ExtensionComponent for Line {
    fn render(&mut self, _: usize, _: &dyn RenderTheme) -> Vec<String> {
        vec![format!("LINE[{}]", self.0)]
    }

    fn handle_key(&mut self, key: &ExtensionKey) -> Option<Value> {
        if key.is("enter") {
            return Some(Value::String(std::mem::take(&mut self.0)));
        }
        match &key.text {
            Some(text) => self.0.push_str(text),
            None => return Some(Value::Null),
        }
        None
    }
}

#[tokio::test]
async fn listeners_consume_and_replace_and_editor_component_takes_keys() {
    let dir = tempfile::tempdir().unwrap();
    let (mut ui, terminal, mut rx) = ui(dir.path());
    let handle = terminal.on_terminal_input(Arc::new(|key| {
        if key.is("x") {
            TerminalInput::Consume
        } else if key.is("y") {
            TerminalInput::Replace("why".into())
        } else {
            TerminalInput::Pass
        }
    }));
    pump(&mut ui, &mut rx);
    for c in ['a', 'x', 'y'] {
        ui.handle_key(key(KeyCode::Char(c)));
    }
    assert_eq!(ui.editor.text(), "awhy");
    handle.remove();
    pump(&mut ui, &mut rx);
    ui.handle_key(key(KeyCode::Char('x')));
    assert_eq!(ui.editor.text(), "awhyx");

    ui.editor.set_text("");
    terminal.set_editor_component(Some(Arc::new(|| {
        Box::new(Line::default()) as Box<dyn ExtensionComponent>
    })));
    pump(&mut ui, &mut rx);
    ui.handle_key(key(KeyCode::Char('h')));
    ui.handle_key(key(KeyCode::Char('i')));
    assert!(screen(&mut ui).contains("LINE[hi]"));
    assert_eq!(ui.editor.text(), "");
    terminal.set_editor_component(None);
    pump(&mut ui, &mut rx);
    assert!(!screen(&mut ui).contains("LINE["));
}

#[test]
fn extension_completions_come_first() {
    use crate::extensions::{AutocompleteProvider, CompletionItem, Completions};
    struct Hash;
    impl AutocompleteProvider for Hash {
        fn complete(&self, line: &str, cursor: usize) -> Option<Completions> {
            line[..cursor].ends_with('#').then(|| Completions {
                prefix: "#".into(),
                items: vec![CompletionItem::new("#tag")],
            })
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let (mut ui, terminal, mut rx) = ui(dir.path());
    terminal.add_autocomplete_provider(Arc::new(Hash));
    pump(&mut ui, &mut rx);
    ui.handle_key(key(KeyCode::Char('#')));
    ui.handle_key(key(KeyCode::Tab));
    let shown = screen(&mut ui);
    assert!(
        ui.editor.text().starts_with("#tag") || shown.contains("#tag"),
        "{shown}"
    );
}
