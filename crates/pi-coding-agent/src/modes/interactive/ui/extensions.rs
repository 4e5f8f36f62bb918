//! The extensions' side of the [`Ui`]: what their `ctx.ui()` asked
//! ([`ExtensionCall`]s: notifications, footer statuses, widgets, the
//! title, the editor, dialogs in the editor slot), their failures and load
//! problems in the chat, their commands typed in the editor, their
//! shortcuts and their rows in `/hotkeys`. As pi 0.73.1's interactive mode.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError, Weak};

use pi_tui::crossterm::event::KeyEvent;
use pi_tui::keybindings::{KeyCombo, capitalize_key};
use pi_tui::overlay::OverlayOptions;
use pi_tui::slot::{Outcome, SlotComponent};
use pi_tui::theme::{Theme, Token};

use super::Ui;
use crate::extensions::{FooterFn, NotifyLevel, WidgetPlacement, run_hook};
use crate::modes::interactive::action::Action;
use crate::modes::interactive::blocks::Notice;
use crate::modes::interactive::events::{
    CustomRequest, DialogKind, DialogRequest, ExtensionCall, ExtensionMirror, ExtensionRequest,
    FooterRequest, Opaque, UiEvent,
};
use crate::modes::interactive::parts::status::Status;
use crate::modes::interactive::parts::widgets::Placement;
use crate::modes::interactive::selectors::ext_custom::ExtCustom;
use crate::modes::interactive::selectors::ext_dialogs::{ExtEditor, ExtInput, ExtSelect};

/// pi's default working message.
pub const WORKING: &str = "Working...";

/// Key bindings an extension shortcut may not take (pi's
/// `RESERVED_KEYBINDINGS_FOR_EXTENSION_CONFLICTS`).
const RESERVED: [&str; 17] = [
    "app.interrupt",
    "app.clear",
    "app.exit",
    "app.suspend",
    "app.thinking.cycle",
    "app.model.cycleForward",
    "app.model.cycleBackward",
    "app.model.select",
    "app.tools.expand",
    "app.thinking.toggle",
    "app.editor.external",
    "app.message.followUp",
    "tui.input.submit",
    "tui.select.confirm",
    "tui.select.cancel",
    "tui.input.copy",
    "tui.editor.deleteToLineEnd",
];

/// What the UI keeps for the extensions.
#[derive(Default)]
pub(crate) struct ExtensionState {
    /// What extensions read without waiting for the UI loop.
    pub mirror: Arc<ExtensionMirror>,
    /// Footer statuses by key (shown sorted by key).
    pub statuses: BTreeMap<String, String>,
    /// A title for the terminal loop to write.
    pub title: Option<String>,
    /// The working message (`None`: pi's default).
    pub working: Option<String>,
    /// The extension dialog shown: its id, whether it counts down, and a
    /// handle that lives as long as the dialog.
    dialog: Option<(u64, bool, Weak<()>)>,
    /// An extension's footer, drawn instead of the built-in one.
    pub footer: Option<FooterFn>,
    /// The working indicator (`None`: pi's spinner).
    pub indicator: Option<crate::extensions::WorkingIndicator>,
    /// The working row hidden (pi's `setWorkingVisible(false)`).
    pub working_hidden: bool,
    /// Terminal input listeners, oldest first, by id.
    pub listeners: Vec<(u64, crate::extensions::TerminalInputFn)>,
    /// An extension's editor, shown instead of the built-in one.
    pub editor_component: Option<Box<dyn crate::extensions::ExtensionComponent>>,
    /// The shortcuts that may be used: parsed key, index in the runner's list.
    shortcuts: Vec<(KeyCombo, usize)>,
}

/// A dialog with a handle that dies with it (so a late close request
/// does not close what replaced it).
struct Tracked<C> {
    inner: C,
    _alive: Arc<()>,
}

impl<C: SlotComponent<Action>> SlotComponent<Action> for Tracked<C> {
    fn handle_key(&mut self, key: &KeyEvent) -> Outcome<Action> {
        self.inner.handle_key(key)
    }

    fn render(&mut self, width: usize, rows: usize) -> Vec<String> {
        self.inner.render(width, rows)
    }

    fn paste(&mut self, text: &str) {
        self.inner.paste(text);
    }

    fn set_theme(&mut self, theme: &Arc<Theme>) {
        self.inner.set_theme(theme);
    }
}

impl Ui {
    /// Hooks the extensions to this UI: their failures come to the chat,
    /// their load problems and shortcut conflicts are shown, their
    /// shortcuts are read.
    pub fn attach_extensions(&mut self) {
        let tx = self.tx.clone();
        self.app.extensions.on_error(Arc::new(move |report| {
            let call = ExtensionCall::Error(report.clone());
            let _ = tx.send(UiEvent::Extension(ExtensionRequest::new(call)));
        }));
        let mut issues: Vec<String> = self.app.extension_warnings.clone();
        issues.extend(self.read_shortcuts());
        let builtin = crate::modes::interactive::complete::COMMANDS;
        for command in self.app.extensions.commands() {
            if builtin.iter().any(|(name, _)| *name == command.name) {
                issues.push(format!(
                    "Extension command '/{}' conflicts with built-in interactive command. Skipping in autocomplete.",
                    command.name
                ));
            }
        }
        if !issues.is_empty() {
            let t = &self.theme;
            let mut text = t.fg(Token::Warning, "[Extension issues]");
            for issue in issues {
                text.push('\n');
                text.push_str(&t.fg(Token::Warning, &format!("  {issue}")));
            }
            self.transcript.notice(Notice::Plain(text));
        }
        self.sync_mirror();
    }

    /// Reads the extensions' shortcuts (the last registration of a key
    /// wins); returns the conflicts, as pi words them.
    fn read_shortcuts(&mut self) -> Vec<String> {
        let kb = Arc::clone(&self.look.keys);
        let reserved: Vec<String> = RESERVED
            .iter()
            .flat_map(|id| kb.keys(id))
            .map(str::to_lowercase)
            .collect();
        let mut issues = Vec::new();
        let mut shortcuts: Vec<(KeyCombo, usize)> = Vec::new();
        for (index, shortcut) in self.app.extensions.shortcuts().iter().enumerate() {
            let key = shortcut.key.to_lowercase();
            if reserved.contains(&key) {
                issues.push(format!(
                    "Extension shortcut '{}' from {} conflicts with built-in shortcut. Skipping.",
                    shortcut.key, shortcut.extension_path
                ));
                continue;
            }
            let Ok(combo) = KeyCombo::parse(&key) else {
                issues.push(format!(
                    "Extension shortcut '{}' from {} is not a key. Skipping.",
                    shortcut.key, shortcut.extension_path
                ));
                continue;
            };
            shortcuts.retain(|(c, _)| c.as_str() != combo.as_str());
            shortcuts.push((combo, index));
        }
        self.ext.shortcuts = shortcuts;
        issues
    }

    /// Runs the extension shortcut bound to `key`; false when none is.
    pub(super) fn extension_shortcut(&mut self, key: &KeyEvent) -> bool {
        let Some(&(_, index)) = self.ext.shortcuts.iter().find(|(c, _)| c.matches(key)) else {
            return false;
        };
        let Some(shortcut) = self.app.extensions.shortcuts().get(index).cloned() else {
            return false;
        };
        let ctx = self.app.extensions.context();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let run = (shortcut.handler)(ctx);
            if let Err(error) = crate::extensions::catch_panics(run).await.and_then(|r| r) {
                let message = format!("Shortcut handler error: {}", error.message());
                let call = ExtensionCall::Notify(message, NotifyLevel::Error);
                let _ = tx.send(UiEvent::Extension(ExtensionRequest::new(call)));
            }
        });
        true
    }

    /// `/hotkeys`' Extensions table (empty without shortcuts).
    pub(super) fn extension_hotkeys(&self) -> String {
        if self.ext.shortcuts.is_empty() {
            return String::new();
        }
        let mut table = String::from("\n\n**Extensions**\n| Key | Action |\n|-----|--------|\n");
        let all = self.app.extensions.shortcuts();
        for (combo, index) in &self.ext.shortcuts {
            let Some(shortcut) = all.get(*index) else {
                continue;
            };
            let description = shortcut
                .description
                .as_deref()
                .unwrap_or(&shortcut.extension_path);
            table.push_str(&format!(
                "| `{}` | {description} |\n",
                capitalize_key(combo.as_str())
            ));
        }
        table.trim_end().to_owned()
    }

    /// True when `text` runs an extension command (`/name args`).
    pub(super) fn is_extension_command(&self, text: &str) -> bool {
        let Some(rest) = text.strip_prefix('/') else {
            return false;
        };
        let name = rest.split_once(' ').map_or(rest, |(name, _)| name);
        self.app.extensions.command(name).is_some()
    }

    /// Runs an extension command through the app's prompt (which runs
    /// extension commands first), even while the agent streams, as pi does.
    pub(super) fn run_extension_command(&mut self, text: &str) {
        self.editor.add_to_history(text);
        let app = Arc::clone(&self.app);
        let tx = self.tx.clone();
        let text = text.to_owned();
        tokio::spawn(async move {
            let call = match app.prompt(text.as_str()).await {
                Err(error) => ExtensionCall::Notify(error.to_string(), NotifyLevel::Error),
                // Shows what the command changed (the model in the footer).
                Ok(_) => ExtensionCall::Redraw,
            };
            let _ = tx.send(UiEvent::Extension(ExtensionRequest::new(call)));
        });
    }

    /// The footer and the statuses under it: an extension's footer when one
    /// is set (the built-in one when it panics).
    pub(super) fn footer_lines(&self, width: usize, lines: &mut Vec<String>) {
        let theme = &self.theme;
        if let Some(footer) = &self.ext.footer
            && let Some(custom) = run_hook(|| Ok(footer(width, theme.as_ref())))
        {
            lines.extend(
                custom
                    .iter()
                    .flat_map(|l| l.split('\n'))
                    .map(|l| pi_tui::text::truncate_to_width(l, width, "")),
            );
            return;
        }
        lines.extend(crate::modes::interactive::parts::footer::render_footer(
            theme,
            &self.footer,
            width,
        ));
        crate::modes::interactive::parts::footer::render_statuses(
            theme,
            &self.ext.statuses,
            width,
            lines,
        );
    }

    /// The working message to show.
    pub(crate) fn working_message(&self) -> String {
        self.ext.working.as_deref().unwrap_or(WORKING).to_owned()
    }

    /// Keeps what extensions read current (after every event and key).
    pub fn sync_mirror(&mut self) {
        let text = self.editor.text();
        let mut mirrored = self
            .ext
            .mirror
            .editor_text
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if *mirrored != text {
            *mirrored = text;
        }
        drop(mirrored);
        self.ext
            .mirror
            .tools_expanded
            .store(self.view.expanded, Ordering::Relaxed);
        self.sync_theme_mirror();
    }

    /// The title an extension set, for the terminal loop to write.
    pub fn take_title(&mut self) -> Option<String> {
        self.ext.title.take()
    }

    /// True while an extension dialog counts down (the tick redraws it).
    pub(super) fn dialog_counts_down(&self) -> bool {
        self.ext
            .dialog
            .as_ref()
            .is_some_and(|(_, timed, alive)| *timed && alive.strong_count() > 0)
    }

    /// Carries out what an extension asked.
    pub(super) fn extension_call(&mut self, request: &ExtensionRequest) {
        let Some(call) = request.take() else {
            return;
        };
        // The extension may have changed the model or thinking level
        // (`pi.setModel`, a preset) before asking.
        if self.footer.refresh_model(&self.app) {
            self.update_border();
        }
        match call {
            ExtensionCall::Notify(message, NotifyLevel::Error) => self.error(message),
            ExtensionCall::Notify(message, NotifyLevel::Warning) => {
                self.transcript.notice(Notice::Warning(message));
            }
            ExtensionCall::Notify(message, NotifyLevel::Info) => self.status_line(&message),
            ExtensionCall::Status(key, Some(text)) => {
                self.ext.statuses.insert(key, text);
            }
            ExtensionCall::Status(key, None) => {
                self.ext.statuses.remove(&key);
            }
            ExtensionCall::Widget(key, lines, placement) => {
                self.widgets.remove(&key);
                if let Some(lines) = lines {
                    self.widgets.set(&key, placement_of(placement), lines);
                }
            }
            ExtensionCall::WidgetComponent(key, Opaque(widget), placement) => {
                self.widgets.remove(&key);
                if let Some(widget) = widget {
                    self.widgets
                        .set_drawn(&key, placement_of(placement), widget);
                }
            }
            ExtensionCall::Title(title) => self.ext.title = Some(title),
            ExtensionCall::SetEditorText(text) => self.editor.set_text(&text),
            ExtensionCall::Paste(text) => self.editor.handle_paste(&text),
            ExtensionCall::WorkingMessage(message) => {
                self.ext.working = message;
                let working = self.working_message();
                if let Status::Busy(loader) = &mut self.status
                    && self.app.agent.is_streaming()
                {
                    loader.set_message(working);
                }
            }
            ExtensionCall::HiddenThinkingLabel(label) => {
                self.transcript.set_hidden_thinking_label(label);
            }
            ExtensionCall::ToolsExpanded(expanded) => {
                if self.view.expanded != expanded {
                    self.view.expanded = expanded;
                    self.view.reprint = true;
                }
            }
            ExtensionCall::Dialog(request) => self.show_dialog(request),
            ExtensionCall::CloseDialog(id) => {
                if let Some((shown, _, alive)) = &self.ext.dialog
                    && *shown == id
                {
                    if alive.strong_count() > 0 {
                        self.slot.close();
                    }
                    self.ext.dialog = None;
                }
            }
            ExtensionCall::Custom(CustomRequest {
                component,
                overlay,
                reply,
            }) => {
                let shown = Box::new(ExtCustom::new(component, Arc::clone(&self.theme), reply));
                if overlay {
                    self.overlays.show(shown, OverlayOptions::default());
                } else {
                    // The extension dialog it replaces (if any) answers `None`.
                    self.ext.dialog = None;
                    self.slot.show(shown);
                }
            }
            ExtensionCall::Footer(FooterRequest(footer)) => self.ext.footer = footer,
            ExtensionCall::Redraw => {
                self.slot.poll();
                self.overlays.poll();
            }
            call @ (ExtensionCall::Header(_)
            | ExtensionCall::WorkingIndicator(_)
            | ExtensionCall::WorkingVisible(_)
            | ExtensionCall::Theme(_)
            | ExtensionCall::TerminalInput(..)
            | ExtensionCall::EditorComponent(_)) => self.extension_part_call(call),
            ExtensionCall::Error(report) => {
                let text = format!(
                    "Extension \"{}\" error: {}",
                    report.extension_path, report.error
                );
                self.transcript.notice(Notice::ErrorText(text));
            }
        }
        self.update_border();
    }

    fn show_dialog(&mut self, request: DialogRequest) {
        let DialogRequest {
            id,
            kind,
            timeout,
            reply,
        } = request;
        let theme = Arc::clone(&self.theme);
        let keys = Arc::clone(&self.look.keys);
        let alive = Arc::new(());
        let handle = Arc::downgrade(&alive);
        let component: Box<dyn SlotComponent<Action>> = match kind {
            DialogKind::Select { title, options } => Box::new(Tracked {
                inner: ExtSelect::new(theme, &title, options, timeout, reply).with_keys(keys),
                _alive: alive,
            }),
            DialogKind::Input { title } => Box::new(Tracked {
                inner: ExtInput::new(theme, &title, timeout, reply).with_keys(keys),
                _alive: alive,
            }),
            DialogKind::Editor { title, prefill } => Box::new(Tracked {
                inner: ExtEditor::new(theme, &title, prefill.as_deref(), reply).with_keys(keys),
                _alive: alive,
            }),
        };
        self.slot.show(component);
        self.ext.dialog = Some((id, timeout.is_some(), handle));
    }
}

fn placement_of(placement: WidgetPlacement) -> Placement {
    match placement {
        WidgetPlacement::AboveEditor => Placement::AboveEditor,
        WidgetPlacement::BelowEditor => Placement::BelowEditor,
    }
}
