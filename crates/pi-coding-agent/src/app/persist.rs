//! The app's one agent listener, in pi's order (`_processAgentEvent`)
//! except that a settled message is persisted before the event goes to the
//! app's listeners (so what a client saw end is on disk). The message is
//! persisted (user/assistant/toolResult as `message` entries, `custom` as a
//! `custom_message` entry; shell records and summaries are written by whoever
//! made them), then an assistant message that did not fail closes a pending
//! auto-retry with `auto_retry_end` and re-arms overflow recovery.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use pi_agent_core::{AgentEvent, AgentMessage};
use pi_ai::StopReason;

use super::{SaveError, SessionEvent};
use crate::messages::CodingMessage;
use crate::session::{SessionError, SessionManager};

/// What the app tells its listeners: an agent event or one of the app's
/// own events (`auto_retry_start`, `compaction_end`, ...).
#[derive(Debug, Clone, Copy)]
pub enum AppEvent<'a> {
    /// An event of the agent loop.
    Agent(&'a AgentEvent<CodingMessage>),
    /// An event of the app itself.
    App(&'a SessionEvent),
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
    /// Texts of the queued steering and follow-up messages (pi's
    /// `_steeringMessages` / `_followUpMessages`).
    pub(crate) queues: Mutex<Queues>,
    /// The last failure to save to the session file, until taken.
    pub(crate) save_error: Mutex<Option<SaveError>>,
}

/// The texts of the queued messages, as `queue_update` reports them.
#[derive(Debug, Default, Clone)]
pub(crate) struct Queues {
    /// Steering messages.
    pub(crate) steering: Vec<String>,
    /// Follow-up messages.
    pub(crate) follow_up: Vec<String>,
}

impl EventHub {
    /// Changes the queued texts and emits pi's `queue_update` with both lists.
    pub(crate) fn update_queues(&self, change: impl FnOnce(&mut Queues) -> bool) {
        let update = {
            let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
            if !change(&mut queues) {
                return;
            }
            SessionEvent::QueueUpdate {
                steering: queues.steering.clone(),
                follow_up: queues.follow_up.clone(),
            }
        };
        self.emit(AppEvent::App(&update));
    }

    /// A user message starts: it leaves the queue it came from (the
    /// steering queue first), matched by its text as pi does.
    fn dequeue(&self, message: &AgentMessage<CodingMessage>) {
        let AgentMessage::Standard(pi_ai::Message::User(user)) = message else {
            return;
        };
        let text = match &user.content {
            pi_ai::UserContent::Text(t) => t.clone(),
            pi_ai::UserContent::Blocks(blocks) => blocks
                .iter()
                .filter_map(pi_ai::UserBlock::as_text)
                .collect::<Vec<_>>()
                .join(""),
        };
        if text.is_empty() {
            return;
        }
        self.update_queues(|q| {
            if let Some(i) = q.steering.iter().position(|t| *t == text) {
                q.steering.remove(i);
            } else if let Some(i) = q.follow_up.iter().position(|t| *t == text) {
                q.follow_up.remove(i);
            } else {
                return false;
            }
            true
        });
    }

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

/// Saves a settled message.
fn persist(
    session: &Mutex<SessionManager>,
    message: &AgentMessage<CodingMessage>,
) -> Result<(), SessionError> {
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
        ) => return Ok(()),
    };
    result.map(|_| ())
}

impl EventHub {
    /// Records a save failure and tells the listeners with pi-rs's
    /// `{"type":"session_save_error","error":...}` app event.
    pub(crate) fn save_failed(&self, error: SaveError) {
        tracing::error!("{error}");
        let event = SessionEvent::SessionSaveError {
            error: error.to_string(),
        };
        *self
            .save_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(error);
        self.emit(AppEvent::App(&event));
    }
}

/// The app's agent listener.
/// The app's agent listeners (the extensions' first), which hear nothing
/// while `detached` is set: pi's `_disconnectFromAgent`, which a manual
/// compaction does before it aborts the run in progress (the rest of that
/// run reaches no one; the event being delivered still reaches them all).
pub(crate) struct Gated {
    /// The listeners, in order.
    pub(crate) listeners: Vec<Box<dyn pi_agent_core::AgentListener<CodingMessage>>>,
    /// Set while the app is detached from the agent's events.
    pub(crate) detached: Arc<AtomicBool>,
}

#[async_trait::async_trait]
impl pi_agent_core::AgentListener<CodingMessage> for Gated {
    async fn on_event(&self, event: &AgentEvent<CodingMessage>, cancel: &pi_ai::CancellationToken) {
        if self.detached.load(Ordering::SeqCst) {
            return;
        }
        for listener in &self.listeners {
            listener.on_event(event, cancel).await;
        }
    }
}

pub(crate) fn app_listener(
    session: Arc<Mutex<SessionManager>>,
    hub: Arc<EventHub>,
) -> impl Fn(&AgentEvent<CodingMessage>) + Send + Sync + 'static {
    move |event| {
        if let AgentEvent::MessageStart { message } = event {
            hub.dequeue(message);
        }
        // Unlike pi, a settled message is saved before the listeners hear
        // of it: a message a client saw end is on disk.
        if let AgentEvent::MessageEnd { message } = event
            && let Err(error) = persist(&session, message)
        {
            hub.save_failed(SaveError(Arc::new(error)));
        }
        hub.emit(AppEvent::Agent(event));
        let AgentEvent::MessageEnd { message } = event else {
            return;
        };
        if let Some(assistant) = message.as_assistant()
            && assistant.stop_reason != StopReason::Error
        {
            hub.overflow_attempted.store(false, Ordering::SeqCst);
            let attempt = hub.retry_attempt.swap(0, Ordering::SeqCst);
            if attempt > 0 {
                let end = SessionEvent::AutoRetryEnd {
                    success: true,
                    attempt,
                    final_error: None,
                };
                hub.emit(AppEvent::App(&end));
            }
        }
    }
}
