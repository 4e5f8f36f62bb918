//! The app's one agent listener, in pi's order (`_processAgentEvent`): the
//! event goes to the app's listeners first, then the settled message is
//! persisted (user/assistant/toolResult as `message` entries, `custom` as a
//! `custom_message` entry; shell records and summaries are written by whoever
//! made them), then an assistant message that did not fail closes a pending
//! auto-retry with `auto_retry_end` and re-arms overflow recovery.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use pi_agent_core::{AgentEvent, AgentMessage};
use pi_ai::StopReason;
use serde_json::{Value, json};

use crate::messages::CodingMessage;
use crate::session::SessionManager;

/// What the app tells its listeners: an agent event or one of the app's
/// own events (`auto_retry_start`, `compaction_end`, ...) as pi's JSON.
#[derive(Debug, Clone, Copy)]
pub enum AppEvent<'a> {
    /// An event of the agent loop.
    Agent(&'a AgentEvent<CodingMessage>),
    /// An event of the app itself.
    App(&'a Value),
}

/// A listener of every [`AppEvent`].
pub type AppListener = Arc<dyn Fn(AppEvent<'_>) + Send + Sync>;

/// Listeners and the auto-retry counter, shared by the app and its agent listener.
#[derive(Default)]
pub(crate) struct EventHub {
    listeners: Mutex<Vec<AppListener>>,
    /// Auto-retries made since the last successful answer.
    pub(crate) retry_attempt: AtomicU32,
    /// An overflow was compacted and retried since the last answer that
    /// did not fail (pi recovers from an overflow once).
    pub(crate) overflow_attempted: AtomicBool,
}

impl EventHub {
    pub(crate) fn subscribe(&self, listener: AppListener) {
        self.listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(listener);
    }

    pub(crate) fn emit(&self, event: AppEvent<'_>) {
        let listeners = self
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for listener in listeners {
            listener(event);
        }
    }
}

fn persist(session: &Mutex<SessionManager>, message: &AgentMessage<CodingMessage>) {
    let mut session = session.lock().unwrap_or_else(PoisonError::into_inner);
    let result = match message {
        AgentMessage::Custom(CodingMessage::Custom(custom)) => session.append_custom_message_entry(
            &custom.custom_type,
            custom.content.clone(),
            custom.display,
            custom.details.clone(),
        ),
        AgentMessage::Standard(_) => session.append_message(message.clone()),
        AgentMessage::Custom(
            CodingMessage::BashExecution(_)
            | CodingMessage::BranchSummary(_)
            | CodingMessage::CompactionSummary(_),
        ) => return,
    };
    if let Err(e) = result {
        tracing::error!("cannot save the message to the session file: {e}");
    }
}

/// The app's agent listener.
pub(crate) fn app_listener(
    session: Arc<Mutex<SessionManager>>,
    hub: Arc<EventHub>,
) -> impl Fn(&AgentEvent<CodingMessage>) + Send + Sync + 'static {
    move |event| {
        hub.emit(AppEvent::Agent(event));
        let AgentEvent::MessageEnd { message } = event else {
            return;
        };
        persist(&session, message);
        if let Some(assistant) = message.as_assistant()
            && assistant.stop_reason != StopReason::Error
        {
            hub.overflow_attempted.store(false, Ordering::SeqCst);
            let attempt = hub.retry_attempt.swap(0, Ordering::SeqCst);
            if attempt > 0 {
                let end = json!({"type": "auto_retry_end", "success": true, "attempt": attempt});
                hub.emit(AppEvent::App(&end));
            }
        }
    }
}
