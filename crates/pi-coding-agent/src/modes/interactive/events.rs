//! What reaches the event loop besides the terminal: the app's agent and
//! app events (turned into owned values by a listener on the agent's task,
//! sent over a channel) and the results of the work the UI started (prompt
//! runs, shell commands, compactions, tree moves, logins).
//!
//! The mode's bottom layer (with [`super::action`]): it imports only the
//! app's types, never the mode's screens.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use pi_agent_core::{AgentEvent, AgentMessage, AgentToolResult};
use pi_ai::AssistantMessageEvent;
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;

use crate::app::{App, AppError, AppEvent, BashResult, SessionEvent, TreeNavigation};
use crate::auth::{LoginEvent, OAuthError, OAuthProvider};
use crate::extensions::{
    AutocompleteProviders, EditorComponentFn, ExtensionComponent, ExtensionErrorReport, FooterFn,
    HeaderFn, NotifyLevel, TerminalInputFn, WidgetFn, WidgetPlacement, WorkingIndicator,
};
use crate::messages::CodingMessage;

/// One event for the UI.
#[derive(Debug, Clone)]
pub enum UiEvent {
    /// A run started.
    AgentStart,
    /// A run ended.
    AgentEnd,
    /// A message started (user prompt, custom message, the assistant's stream).
    MessageStart(AgentMessage<CodingMessage>),
    /// The streaming assistant message changed (the event shares the
    /// partial message, it is not a copy).
    MessageUpdate(AssistantMessageEvent),
    /// A message is complete.
    MessageEnd(AgentMessage<CodingMessage>),
    /// A tool call starts running.
    ToolStart {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments.
        args: Value,
    },
    /// A running tool reported partial output.
    ToolUpdate {
        /// Call id.
        id: String,
        /// The partial result.
        partial: AgentToolResult,
    },
    /// A tool call finished.
    ToolEnd {
        /// Call id.
        id: String,
        /// The result.
        result: AgentToolResult,
        /// True on failure.
        is_error: bool,
    },
    /// One of the app's own events (retries, compactions, save errors, ...).
    App(SessionEvent),
    /// A prompt run the UI started has ended (with the error to show).
    PromptDone(Option<String>),
    /// The diff an edit will make, computed before it runs.
    EditPreview {
        /// Call id.
        id: String,
        /// The diff (the edit tool's format).
        diff: String,
    },
    /// A warning found after start (pi's check of tmux's keyboard setup).
    Warning(String),
    /// A dim status line in the chat, shown once the extensions heard of
    /// what it reports (a model cycled with Ctrl+P).
    Status(String),
    /// Ctrl+V saved the clipboard's image to this file (its path goes into the editor).
    PastedImage(std::path::PathBuf),
    /// A running user shell command's output so far.
    BashOutput(String),
    /// A user shell command ended.
    BashDone(BashResult),
    /// A user shell command could not run (the error to show).
    BashFailed(String),
    /// A move in the session tree (`/tree`) ended.
    Tree(Box<TreeDone>),
    /// A manual compaction ended (its cards come from the app events).
    CompactDone,
    /// `/share` ended: the links to show, or the error.
    ShareDone(Result<String, Arc<AppError>>),
    /// A `/login` subscription flow needs the dialog or has ended.
    OAuth(OAuthUpdate),
    /// An extension asked something of the UI (`ctx.ui()`).
    Extension(ExtensionRequest),
    /// `/reload`'s reload of the app has ended.
    Reloaded,
    /// The custom theme file in use changed on disk.
    ThemeFileChanged(std::path::PathBuf),
    /// A session replacement (`/new`, `/resume`, `/fork`, `/clone`), which
    /// the extensions may cancel, has ended.
    Session(SessionDone),
}

/// How a session replacement went: `Ok(false)` / `Ok(None)` when an
/// extension cancelled it, `Err` with the error to show.
#[derive(Debug, Clone)]
pub enum SessionDone {
    /// `/new`.
    New(Result<bool, Arc<AppError>>),
    /// `/resume` of a session file.
    Resume(Result<bool, Arc<AppError>>),
    /// `/fork`: the forked message's text.
    Fork(Result<Option<String>, Arc<AppError>>),
    /// `/clone`.
    Clone(Result<bool, Arc<AppError>>),
}

/// What an extension asks of the terminal UI.
#[derive(Debug)]
pub enum ExtensionCall {
    /// A notification in the chat.
    Notify(String, NotifyLevel),
    /// Sets (`Some`) or clears the footer status of a key.
    Status(String, Option<String>),
    /// Sets (`Some`) or removes the widget of a key.
    Widget(String, Option<Vec<String>>, WidgetPlacement),
    /// Sets (`Some`) or removes the widget of a key, drawn by the extension.
    WidgetComponent(String, Opaque<Option<WidgetFn>>, WidgetPlacement),
    /// The terminal title.
    Title(String),
    /// Replaces the editor's text.
    SetEditorText(String),
    /// Pastes into the editor.
    Paste(String),
    /// The working message (`None`: the default).
    WorkingMessage(Option<String>),
    /// The label of hidden thinking (`None`: the default).
    HiddenThinkingLabel(Option<String>),
    /// Expands or collapses tool output.
    ToolsExpanded(bool),
    /// A dialog to show in the editor slot.
    Dialog(DialogRequest),
    /// The dialog `id` timed out or was cancelled: close it if still shown.
    CloseDialog(u64),
    /// An extension failed (pi's `Extension "<path>" error: <message>`).
    Error(ExtensionErrorReport),
    /// An extension's component to show in the editor slot or as an overlay.
    Custom(CustomRequest),
    /// An extension's footer (`None`: the built-in one).
    Footer(FooterRequest),
    /// An extension's header (`None`: the built-in one).
    Header(Opaque<Option<HeaderFn>>),
    /// The working indicator (`None`: pi's spinner).
    WorkingIndicator(Option<WorkingIndicator>),
    /// Shows or hides the working row.
    WorkingVisible(bool),
    /// Switches to a theme (already loaded) and saves its name.
    Theme(Opaque<(String, pi_tui::theme::Theme)>),
    /// Adds (`Some`) or removes the terminal input listener `id`.
    TerminalInput(u64, Opaque<Option<TerminalInputFn>>),
    /// An extension's editor (`None`: the built-in one).
    EditorComponent(Opaque<Option<EditorComponentFn>>),
    /// Draw again; components that closed on their own close.
    Redraw,
}

/// A payload shown as `..` in debug output (closures, themes).
pub struct Opaque<T>(pub T);

impl<T> std::fmt::Debug for Opaque<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("..")
    }
}

/// An extension's footer (`None`: the built-in one).
pub struct FooterRequest(pub Option<FooterFn>);

impl std::fmt::Debug for FooterRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "FooterRequest(Some)"
        } else {
            "FooterRequest(None)"
        })
    }
}

/// An extension's component (pi's `ctx.ui.custom()`); the value it closes
/// with goes to `reply` (dropping it answers `None`).
pub struct CustomRequest {
    /// The component.
    pub component: Box<dyn ExtensionComponent>,
    /// Shown over the screen rather than in the editor's place.
    pub overlay: bool,
    /// Where its value goes.
    pub reply: oneshot::Sender<Option<Value>>,
}

impl std::fmt::Debug for CustomRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CustomRequest")
            .field("overlay", &self.overlay)
            .finish_non_exhaustive()
    }
}

/// A dialog an extension opened; the answer goes to `reply` (dropping
/// it answers `None`).
#[derive(Debug)]
pub struct DialogRequest {
    /// Which dialog (to close it on a timeout).
    pub id: u64,
    /// Its kind and contents.
    pub kind: DialogKind,
    /// When it closes by itself.
    pub timeout: Option<Duration>,
    /// Where the answer goes.
    pub reply: oneshot::Sender<Option<String>>,
}

/// The kinds of extension dialogs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DialogKind {
    /// Pick one option (`confirm` is a select of `Yes` / `No`).
    Select {
        /// The title (may span lines).
        title: String,
        /// The options.
        options: Vec<String>,
    },
    /// One line of text.
    Input {
        /// The title.
        title: String,
    },
    /// A multi-line editor.
    Editor {
        /// The title.
        title: String,
        /// The text it starts with.
        prefill: Option<String>,
    },
}

/// An [`ExtensionCall`] in a shareable box, so that [`UiEvent`] stays
/// `Clone` (the call is taken once).
#[derive(Clone)]
pub struct ExtensionRequest(Arc<Mutex<Option<ExtensionCall>>>);

impl std::fmt::Debug for ExtensionRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ExtensionRequest")
    }
}

impl ExtensionRequest {
    /// Boxes `call`.
    pub fn new(call: ExtensionCall) -> Self {
        Self(Arc::new(Mutex::new(Some(call))))
    }

    /// The call, the first time only.
    pub fn take(&self) -> Option<ExtensionCall> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

/// What extensions read without waiting for the UI loop: the editor's
/// text and whether tool output is expanded, kept current by the UI.
#[derive(Debug, Default)]
pub struct ExtensionMirror {
    /// The editor's text.
    pub editor_text: Mutex<String>,
    /// Tool output expanded.
    pub tools_expanded: std::sync::atomic::AtomicBool,
    /// The theme's name, the known themes and the colour mode.
    pub themes: Mutex<(
        String,
        crate::themes::ThemeCatalog,
        Option<pi_tui::theme::ColorMode>,
    )>,
    /// The completions extensions added (the editor's completer asks them).
    pub autocomplete: AutocompleteProviders,
}

/// The result of a tree move run in the background.
#[derive(Debug, Clone)]
pub struct TreeDone {
    /// The entry moved to.
    pub target: String,
    /// How it went.
    pub outcome: TreeOutcome,
}

/// How a tree move went.
#[derive(Debug, Clone)]
pub enum TreeOutcome {
    /// The leaf moved.
    Moved(TreeNavigation),
    /// The branch summary was cancelled (Esc): back to the tree.
    Cancelled,
    /// It failed (the error to show).
    Failed(String),
}

/// What a subscription login's task reports.
pub enum LoginUpdate {
    /// Something to show or ask.
    Event(LoginEvent),
    /// The login ended.
    Done(OAuthProvider, Result<(), OAuthError>),
}

/// A [`LoginUpdate`] in a shareable box, so that [`UiEvent`] stays `Clone`
/// (the update is taken once).
#[derive(Clone)]
pub struct OAuthUpdate(Arc<Mutex<Option<LoginUpdate>>>);

impl std::fmt::Debug for OAuthUpdate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OAuthUpdate")
    }
}

impl OAuthUpdate {
    /// Boxes `update`.
    pub fn new(update: LoginUpdate) -> Self {
        Self(Arc::new(Mutex::new(Some(update))))
    }

    /// The update, the first time only.
    pub fn take(&self) -> Option<LoginUpdate> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

impl UiEvent {
    /// The owned form of an app event. `agent_end`'s messages are not
    /// copied (the transcript already has them).
    pub fn from_app(event: AppEvent<'_>) -> Option<Self> {
        let event = match event {
            AppEvent::App(event) => return Some(Self::App(event.clone())),
            AppEvent::Agent(event) => event,
        };
        Some(match event {
            AgentEvent::AgentStart => Self::AgentStart,
            AgentEvent::AgentEnd { .. } => Self::AgentEnd,
            AgentEvent::TurnStart | AgentEvent::TurnEnd { .. } => return None,
            AgentEvent::MessageStart { message } => Self::MessageStart(message.clone()),
            AgentEvent::MessageUpdate {
                assistant_message_event,
                ..
            } => Self::MessageUpdate(assistant_message_event.clone()),
            AgentEvent::MessageEnd { message } => Self::MessageEnd(message.clone()),
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
            } => Self::ToolStart {
                id: tool_call_id.clone(),
                name: tool_name.clone(),
                args: args.clone(),
            },
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                partial_result,
                ..
            } => Self::ToolUpdate {
                id: tool_call_id.clone(),
                partial: partial_result.clone(),
            },
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                result,
                is_error,
                ..
            } => Self::ToolEnd {
                id: tool_call_id.clone(),
                result: result.clone(),
                is_error: *is_error,
            },
        })
    }
}

/// Forwards every app event to `tx` (events after the UI closed are dropped).
pub fn forward_app_events(app: &App, tx: UnboundedSender<UiEvent>) {
    app.subscribe(Arc::new(move |event| {
        if let Some(event) = UiEvent::from_app(event) {
            let _ = tx.send(event);
        }
    }));
}
