//! The two slots through the whole `Ui`: an overlay takes the keys before
//! the editor slot and the editor, and what it answers is dispatched.

use std::sync::Arc;

use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use pi_tui::overlay::{Anchor, OverlayOptions, Size};
use pi_tui::slot::{Outcome, SlotComponent};
use pi_tui::theme::{ColorMode, Theme};

use super::Ui;
use crate::app::{SessionChoice, StartOptions, build_app};
use crate::modes::interactive::action::Action;

/// A one-line panel; Enter closes it with a status line, Esc cancels.
struct Panel(&'static str);

impl SlotComponent<Action> for Panel {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome<Action> {
        match key.code {
            KeyCode::Enter => Outcome::Done(Action::Status(format!("{} closed", self.0))),
            KeyCode::Esc => Outcome::Cancel,
            _ => Outcome::Stay,
        }
    }

    fn render(&mut self, width: usize, _rows: usize) -> Vec<String> {
        vec![format!("{:<width$}", self.0)]
    }
}

fn ui(dir: &std::path::Path) -> Ui {
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
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    Ui::new(app, Arc::new(Theme::dark(ColorMode::NoColor)), tx)
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn screen(ui: &mut Ui) -> String {
    let frame = ui.frame(40, 20);
    let mut lines = frame.commits;
    lines.extend(frame.live);
    lines.join("\n")
}

#[test]
fn an_overlay_takes_the_keys_first_and_its_answer_is_dispatched() {
    let dir = tempfile::tempdir().unwrap();
    let mut ui = ui(dir.path());
    ui.slot.show(Box::new(Panel("slot panel")));
    ui.overlays.show(
        Box::new(Panel("overlay")),
        OverlayOptions {
            anchor: Anchor::TopLeft,
            width: Some(Size::Cells(10)),
            ..OverlayOptions::default()
        },
    );
    let shown = screen(&mut ui);
    assert!(shown.contains("overlay   "), "{shown}");
    assert!(shown.contains("slot panel"), "{shown}");
    ui.handle_key(key(KeyCode::Char('x')));
    ui.handle_key(key(KeyCode::Enter));
    let shown = screen(&mut ui);
    assert!(shown.contains("overlay closed"), "{shown}");
    assert!(
        !shown.contains("overlay   "),
        "the overlay is gone: {shown}"
    );
    assert!(
        shown.contains("slot panel"),
        "the slot still holds its panel"
    );
    ui.handle_key(key(KeyCode::Esc));
    ui.handle_key(key(KeyCode::Char('y')));
    assert_eq!(
        ui.editor.text(),
        "y",
        "keys reach the editor once both are closed"
    );
}
