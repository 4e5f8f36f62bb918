//! What an extension's `ctx.ui` can do, whatever the mode: the interactive
//! terminal, rpc's extension UI protocol, or no UI at all (print and json
//! modes, where dialogs resolve as pi resolves them: no choice, not
//! confirmed, no text). An extension never learns which.

use std::time::Duration;

use async_trait::async_trait;
use pi_ai::CancellationToken;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::render::{ExtensionComponent, FooterFn};
use super::ui_parts::{
    AutocompleteProvider, EditorComponentFn, HeaderFn, SetThemeError, TerminalInputFn,
    TerminalInputHandle, WidgetFn, WorkingIndicator,
};
use std::sync::Arc;

/// How long a dialog may stay open, and a token that dismisses it.
#[derive(Debug, Clone, Default)]
pub struct DialogOptions {
    /// Resolves with the dialog's default answer when it elapses.
    pub timeout: Option<Duration>,
    /// Dismisses the dialog (its default answer) when cancelled.
    pub signal: Option<CancellationToken>,
}

impl DialogOptions {
    /// A dialog that closes itself after `timeout`.
    pub fn with_timeout(timeout: Duration) -> Self {
        Self {
            timeout: Some(timeout),
            signal: None,
        }
    }
}

/// A notification's kind (pi's `notifyType`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NotifyLevel {
    /// Information.
    #[default]
    Info,
    /// A warning.
    Warning,
    /// An error.
    Error,
}

impl NotifyLevel {
    /// pi's name of the level.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Error => "error",
        }
    }
}

/// Where a widget is drawn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum WidgetPlacement {
    /// Above the editor (pi's default).
    #[default]
    AboveEditor,
    /// Below the editor.
    BelowEditor,
}

/// The UI an extension talks to. Dialogs are async and resolve to their
/// default (`None`, `false`) when dismissed, timed out or unsupported;
/// the other calls return at once.
#[async_trait]
pub trait ExtensionUi: Send + Sync {
    /// Whether there is a user to ask (pi's `ctx.hasUI`).
    fn has_ui(&self) -> bool;

    /// Whether this is the terminal UI, with a person at the keyboard
    /// (beyond pi: rpc also has a UI, but a program answers its dialogs).
    /// Only the interactive mode says yes.
    fn is_terminal(&self) -> bool {
        false
    }

    /// Asks the user to pick one of `options`; `None` when dismissed.
    async fn select(
        &self,
        title: &str,
        options: &[String],
        dialog: DialogOptions,
    ) -> Option<String>;

    /// Asks a yes/no question; false when dismissed.
    async fn confirm(&self, title: &str, message: &str, dialog: DialogOptions) -> bool;

    /// Asks for a line of text; `None` when dismissed.
    async fn input(
        &self,
        title: &str,
        placeholder: Option<&str>,
        dialog: DialogOptions,
    ) -> Option<String>;

    /// Opens a multi-line editor; `None` when dismissed.
    async fn editor(&self, title: &str, prefill: Option<&str>) -> Option<String>;

    /// Shows a notification; `None`: no kind given (pi's `notify(message)`,
    /// shown as information; rpc sends no `notifyType`).
    fn notify(&self, message: &str, level: Option<NotifyLevel>);

    /// Sets (`Some`) or clears (`None`) the footer status of `key`.
    fn set_status(&self, key: &str, text: Option<&str>);

    /// Sets (`Some`) or clears (`None`) the widget of `key`; `placement`
    /// `None`: none given (drawn above the editor; rpc sends no
    /// `widgetPlacement`, while an explicit `AboveEditor` is sent).
    fn set_widget(&self, key: &str, lines: Option<Vec<String>>, placement: Option<WidgetPlacement>);

    /// Sets the terminal title.
    fn set_title(&self, title: &str);

    /// Replaces the editor's text.
    fn set_editor_text(&self, text: &str);

    /// A JavaScript extension's `setEditorText(undefined)`: the editor is
    /// emptied; pi's rpc mode sends the request without its `text`.
    fn set_editor_text_undefined(&self) {
        self.set_editor_text("");
    }

    /// The editor's text (`""` where there is no editor).
    fn editor_text(&self) -> String {
        String::new()
    }

    /// Pastes into the editor (where there is none: sets its text).
    fn paste_to_editor(&self, text: &str) {
        self.set_editor_text(text);
    }

    /// Sets (`Some`) or restores (`None`) the working message.
    fn set_working_message(&self, message: Option<&str>) {
        let _ = message;
    }

    /// Sets (`Some`) or restores (`None`) the label of hidden thinking.
    fn set_hidden_thinking_label(&self, label: Option<&str>) {
        let _ = label;
    }

    /// Expands or collapses tool output.
    fn set_tools_expanded(&self, expanded: bool) {
        let _ = expanded;
    }

    /// Whether tool output is expanded.
    fn tools_expanded(&self) -> bool {
        false
    }

    /// Replaces the footer (and the statuses under it) with `footer`'s
    /// lines; `None` restores the built-in one (pi's `setFooter`; a no-op
    /// without a terminal, as in pi's rpc mode).
    fn set_footer(&self, footer: Option<FooterFn>) {
        let _ = footer;
    }

    /// Sets (`Some`) or clears (`None`) the widget of `key` as a component
    /// that draws itself (pi's `setWidget(key, factory)`; a no-op without a
    /// terminal, as in pi's rpc mode).
    fn set_widget_component(
        &self,
        key: &str,
        widget: Option<WidgetFn>,
        placement: Option<WidgetPlacement>,
    ) {
        let _ = (key, widget, placement);
    }

    /// Replaces the start-up header with `header`'s lines; `None`
    /// restores the built-in one (pi's `setHeader`; a no-op without a
    /// terminal, as in pi's rpc mode).
    fn set_header(&self, header: Option<HeaderFn>) {
        let _ = header;
    }

    /// Sets (`Some`) or restores (`None`: pi's spinner) the working
    /// indicator (pi's `setWorkingIndicator`; a no-op without a terminal).
    fn set_working_indicator(&self, indicator: Option<WorkingIndicator>) {
        let _ = indicator;
    }

    /// Shows or hides the working row while the agent works (pi's
    /// `setWorkingVisible`; a no-op without a terminal).
    fn set_working_visible(&self, visible: bool) {
        let _ = visible;
    }

    /// The current theme's name (`None` without a terminal).
    fn theme_name(&self) -> Option<String> {
        None
    }

    /// Every theme's name (pi's `getAllThemes`, without the paths; rpc: `[]`).
    fn themes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Switches to the theme `name` and saves it as the `theme` setting
    /// (pi's `setTheme`; rpc: not supported).
    fn set_theme(&self, name: &str) -> Result<(), SetThemeError> {
        let _ = name;
        Err(SetThemeError::Unsupported)
    }

    /// Adds completions for the editor, asked before the ones added
    /// earlier and the built-in ones (pi's `addAutocompleteProvider`; a
    /// no-op without a terminal).
    fn add_autocomplete_provider(&self, provider: Arc<dyn AutocompleteProvider>) {
        let _ = provider;
    }

    /// Listens to the keys before the editor and the app's bindings (pi's
    /// `onTerminalInput`; without a terminal nothing is heard).
    fn on_terminal_input(&self, listener: TerminalInputFn) -> TerminalInputHandle {
        let _ = listener;
        TerminalInputHandle::none()
    }

    /// Replaces the editor with the component `factory` builds; `None`
    /// restores the built-in editor (pi's `setEditorComponent`; a no-op
    /// without a terminal).
    fn set_editor_component(&self, factory: Option<EditorComponentFn>) {
        let _ = factory;
    }

    /// Draws again: what an extension draws changed (pi's
    /// `tui.requestRender()`), and a component it shows may have closed
    /// ([`super::ExtensionComponent::poll_close`]). A no-op without a
    /// terminal.
    fn request_render(&self) {}

    /// Shows `component` in the editor's place (or, with `overlay`, over
    /// the screen) until it closes, and resolves to the value it closed
    /// with (pi's `ctx.ui.custom()`). `None` when it was dismissed
    /// otherwise, or where there is no terminal (rpc, print, json: pi's
    /// `undefined`).
    async fn custom(&self, component: Box<dyn ExtensionComponent>, overlay: bool) -> Option<Value> {
        let _ = (component, overlay);
        None
    }
}

/// No UI (print and json modes): dialogs resolve to their defaults at
/// once, everything else is ignored.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoUi;

#[async_trait]
impl ExtensionUi for NoUi {
    fn has_ui(&self) -> bool {
        false
    }

    async fn select(&self, _: &str, _: &[String], _: DialogOptions) -> Option<String> {
        None
    }

    async fn confirm(&self, _: &str, _: &str, _: DialogOptions) -> bool {
        false
    }

    async fn input(&self, _: &str, _: Option<&str>, _: DialogOptions) -> Option<String> {
        None
    }

    async fn editor(&self, _: &str, _: Option<&str>) -> Option<String> {
        None
    }

    fn notify(&self, _: &str, _: Option<NotifyLevel>) {}

    fn set_status(&self, _: &str, _: Option<&str>) {}

    fn set_widget(&self, _: &str, _: Option<Vec<String>>, _: Option<WidgetPlacement>) {}

    fn set_title(&self, _: &str) {}

    fn set_editor_text(&self, _: &str) {}
}

/// Waits for `answer`, or for the dialog's timeout or signal (then `None`).
pub async fn within_dialog<T>(
    dialog: &DialogOptions,
    answer: impl std::future::Future<Output = Option<T>>,
) -> Option<T> {
    let timeout = async {
        match dialog.timeout {
            Some(duration) => tokio::time::sleep(duration).await,
            None => std::future::pending().await,
        }
    };
    let signal = async {
        match &dialog.signal {
            Some(token) => token.cancelled().await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        value = answer => value,
        () = timeout => None,
        () = signal => None,
    }
}
