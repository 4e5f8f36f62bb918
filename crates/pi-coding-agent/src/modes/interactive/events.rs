//! What reaches the event loop besides the terminal: the app's agent and
//! app events (turned into owned values by a listener on the agent's task,
//! sent over a channel) and the results of the work the UI started (prompt
//! runs, shell commands, compactions, tree moves, logins).
//!
//! The mode's bottom layer (with [`super::action`]): it imports only the
//! app's types, never the mode's screens.

use std::sync::{Arc, Mutex, PoisonError};

use pi_agent_core::{AgentEvent, AgentMessage, AgentToolResult};
use pi_ai::AssistantMessageEvent;
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

use crate::app::{App, AppEvent, BashResult, SessionEvent, TreeNavigation};
use crate::auth::{LoginEvent, OAuthError, OAuthProvider};
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
    /// A user shell command ended.
    BashDone(BashResult),
    /// A user shell command could not run (the error to show).
    BashFailed(String),
    /// A move in the session tree (`/tree`) ended.
    Tree(Box<TreeDone>),
    /// A manual compaction ended (its cards come from the app events).
    CompactDone,
    /// A `/login` subscription flow needs the dialog or has ended.
    OAuth(OAuthUpdate),
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
