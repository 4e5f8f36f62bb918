//! The terminal-only parts of the extensions' `ctx.ui` (pi 0.73.1's
//! `setHeader`, `setWorkingIndicator`, `setWorkingVisible`, `setTheme`,
//! `onTerminalInput`, `setEditorComponent`): the calls carried out on the
//! [`Ui`], the keys the listeners and an extension's editor get, and what
//! is drawn in the editor's place.

use std::sync::{Arc, PoisonError};

use pi_tui::crossterm::event::KeyEvent;
use serde_json::Value;

use super::Ui;
use crate::extensions::{TerminalInput, run_hook};
use crate::modes::interactive::action::{Action, Effect};
use crate::modes::interactive::blocks::{BlockKind, Notice};
use crate::modes::interactive::events::{ExtensionCall, Opaque};
use crate::modes::interactive::parts::status::Status;
use crate::modes::interactive::selectors::ext_custom::extension_key;

impl Ui {
    /// Carries out a call of the terminal-only parts (the others are
    /// ignored: `extension_call` handles them).
    pub(super) fn extension_part_call(&mut self, call: ExtensionCall) {
        match call {
            ExtensionCall::Header(Opaque(header)) => {
                self.header.custom = header;
                if self.header.quiet {
                    // `quietStartup`: the header block comes or goes with
                    // the extension's header; the chat is built again.
                    self.reload_chat();
                } else if let Some(block) = self.transcript.get_mut(0)
                    && matches!(
                        block.kind,
                        BlockKind::Notice(Notice::Header { .. } | Notice::CustomHeader(_))
                    )
                {
                    block.kind = BlockKind::Notice(self.header.block());
                    self.view.reprint = true;
                }
            }
            ExtensionCall::WorkingIndicator(indicator) => {
                self.ext.indicator = indicator;
                if let Status::Busy(loader) = &mut self.status {
                    loader.set_frames(self.ext.indicator.clone().map(|i| (i.frames, i.interval)));
                }
            }
            ExtensionCall::WorkingVisible(visible) => self.ext.working_hidden = !visible,
            ExtensionCall::Theme(Opaque((name, theme))) => {
                self.set_theme(theme);
                self.apply_setting("theme", &name);
            }
            ExtensionCall::TerminalInput(id, Opaque(listener)) => {
                self.ext.listeners.retain(|(shown, _)| *shown != id);
                if let Some(listener) = listener {
                    self.ext.listeners.push((id, listener));
                }
            }
            ExtensionCall::EditorComponent(Opaque(factory)) => {
                self.ext.editor_component = factory.and_then(|f| run_hook(|| Ok(f())));
                // As pi: the new editor starts with the text typed so far.
                let text = self.editor.text();
                if let Some(component) = self.ext.editor_component.as_mut()
                    && !text.is_empty()
                {
                    component.paste(&text);
                }
            }
            _ => {}
        }
    }

    /// The working spinner, drawn with the extensions' indicator.
    pub(crate) fn working_status(&self) -> Status {
        let mut status = Status::busy(&self.theme, &self.working_message());
        if let Status::Busy(loader) = &mut status
            && let Some(indicator) = &self.ext.indicator
        {
            loader.set_frames(Some((indicator.frames.clone(), indicator.interval)));
        }
        status
    }

    /// True when an extension hid the working row and it shows.
    pub(super) fn working_hidden(&self) -> bool {
        self.ext.working_hidden
            && matches!(&self.status, Status::Busy(l) if l.message() == self.working_message())
    }

    /// Runs the terminal input listeners on `key` (oldest first): `Some`
    /// when one consumed or replaced it.
    pub(super) fn terminal_input(&mut self, key: &KeyEvent) -> Option<Effect> {
        if self.ext.listeners.is_empty() {
            return None;
        }
        let seen = extension_key(key)?;
        let listeners: Vec<_> = self
            .ext
            .listeners
            .iter()
            .map(|(_, l)| Arc::clone(l))
            .collect();
        for listener in listeners {
            match run_hook(|| Ok(listener(&seen))).unwrap_or_default() {
                TerminalInput::Pass => {}
                TerminalInput::Consume => return Some(Effect::None),
                TerminalInput::Replace(text) => {
                    self.handle_paste(&text);
                    return Some(Effect::None);
                }
            }
        }
        None
    }

    /// Gives `key` to an extension's editor: `None` when there is none or
    /// it passed the key on (`Some(Value::Null)`); a string submits it as
    /// a prompt.
    pub(super) fn editor_component_key(&mut self, key: &KeyEvent) -> Option<Effect> {
        let component = self.ext.editor_component.as_mut()?;
        let seen = extension_key(key)?;
        let answer = run_hook(|| Ok(component.handle_key(&seen))).flatten();
        match answer {
            Some(Value::Null) => None,
            Some(Value::String(text)) => Some(self.dispatch(Action::Submit(text))),
            _ => Some(Effect::None),
        }
    }

    /// Pastes into an extension's editor; false when there is none.
    pub(super) fn editor_component_paste(&mut self, text: &str) -> bool {
        match self.ext.editor_component.as_mut() {
            Some(component) => {
                component.paste(text);
                true
            }
            None => false,
        }
    }

    /// The editor's lines: an extension's editor when one is set (the
    /// built-in one when it fails).
    pub(super) fn editor_lines(&mut self, width: usize, rows: usize, lines: &mut Vec<String>) {
        let theme = Arc::clone(&self.theme);
        if let Some(component) = self.ext.editor_component.as_mut()
            && let Some(custom) = run_hook(|| Ok(component.render(width, theme.as_ref())))
        {
            lines.extend(
                custom
                    .iter()
                    .flat_map(|l| l.split('\n'))
                    .map(|l| pi_tui::text::truncate_to_width(l, width, "")),
            );
            return;
        }
        lines.extend(self.editor.render(width, (rows * 3 / 10).max(5)));
    }

    /// Keeps the theme's name and the catalogue current for the extensions.
    pub(super) fn sync_theme_mirror(&self) {
        let mut themes = self
            .ext
            .mirror
            .themes
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if themes.0 != self.theme.name() {
            self.theme.name().clone_into(&mut themes.0);
        }
        if themes.2 != Some(self.theme.mode()) || themes.1.names() != self.look.themes.names() {
            themes.1 = self.look.themes.clone();
            themes.2 = Some(self.theme.mode());
        }
    }
}
