//! Where a key or a paste goes: the topmost overlay that takes input, else
//! the component in the editor slot, else Esc cancelling a branch summary,
//! else the app's key bindings (`app.clear`, `app.exit`, `app.suspend`, ...),
//! else the editor. Every key is looked up in `keybindings.json`'s table and
//! becomes an [`Action`] for the dispatcher.

use std::sync::Arc;

use pi_tui::crossterm::event::{KeyEvent, KeyEventKind};
use pi_tui::editor::EditorAction;
use pi_tui::slot::Outcome;

use super::Ui;
use crate::modes::interactive::action::{Action, Effect};

impl Ui {
    /// Handles a key press.
    pub fn handle_key(&mut self, key: KeyEvent) -> Effect {
        if key.kind == KeyEventKind::Release {
            return Effect::None;
        }
        if let Some(effect) = self.terminal_input(&key) {
            self.update_border();
            return effect;
        }
        if let Some(outcome) = self.overlays.handle_key(&key) {
            return self.outcome(outcome);
        }
        let effect = if let Some(outcome) = self.slot.handle_key(&key) {
            self.outcome(outcome)
        } else if self.look.keys.matches(&key, "app.interrupt")
            && let Some(cancel) = &self.work.summary_cancel
        {
            cancel.cancel();
            Effect::None
        } else if let Some(effect) = self.editor_component_key(&key) {
            effect
        } else if self.extension_shortcut(&key) {
            Effect::None
        } else if let Some(action) = self.key_action(&key) {
            self.dispatch(action)
        } else {
            self.editor_key(key)
        };
        self.update_border();
        effect
    }

    /// Pasted text: for the overlay or the slot component that takes input,
    /// else the editor.
    pub fn handle_paste(&mut self, text: &str) {
        if !self.overlays.paste(text)
            && !self.slot.paste(text)
            && !self.editor_component_paste(text)
        {
            self.editor.handle_paste(text);
        }
    }

    /// Carries out what a slot or overlay component answered.
    fn outcome(&mut self, outcome: Outcome<Action>) -> Effect {
        match outcome.into_action() {
            Some(action) => self.dispatch(action),
            None => Effect::None,
        }
    }

    /// The app's own binding of `key`; `None` passes the key to the editor.
    fn key_action(&mut self, key: &KeyEvent) -> Option<Action> {
        let kb = Arc::clone(&self.look.keys);
        let is = |id: &str| kb.matches(key, id);
        let action = if is("app.clear") {
            Action::Clear
        } else if is("app.exit") && self.editor.is_empty() {
            Action::Quit
        } else if is("app.suspend") {
            Action::Suspend
        } else if is("app.editor.external") {
            Action::ExternalEditor
        } else if is("app.tools.expand") {
            Action::ToggleExpanded
        } else if is("app.thinking.toggle") {
            Action::ToggleThinking
        } else if is("app.model.cycleForward") || is("app.model.cycleBackward") {
            Action::CycleModel {
                backward: is("app.model.cycleBackward"),
            }
        } else if is("app.thinking.cycle") {
            Action::CycleThinking
        // Actions of slash commands (unbound by default, except Ctrl+L);
        // the editor keeps its draft.
        } else if is("app.model.select") {
            Action::ModelCommand(None)
        } else if is("app.session.new") {
            Action::NewSession
        } else if is("app.session.tree") {
            Action::OpenTree
        } else if is("app.session.fork") {
            Action::OpenFork
        } else if is("app.session.resume") {
            Action::OpenSessions { startup: false }
        } else if is("app.message.followUp") {
            Action::FollowUp(self.editor.take_text())
        } else if is("app.message.dequeue") {
            Action::Dequeue
        } else if is("app.clipboard.pasteImage") {
            Action::PasteImage
        } else {
            return None;
        };
        Some(action)
    }

    fn editor_key(&mut self, key: KeyEvent) -> Effect {
        let is_escape = self.look.keys.matches(&key, "app.interrupt");
        match self.editor.handle_key(key) {
            EditorAction::Submit(text) => self.dispatch(Action::Submit(text)),
            EditorAction::FollowUp(text) => self.dispatch(Action::FollowUp(text)),
            EditorAction::Ignored if is_escape => self.dispatch(Action::Interrupt),
            EditorAction::Handled | EditorAction::Ignored => Effect::None,
        }
    }
}
