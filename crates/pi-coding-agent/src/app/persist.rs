//! Keeps the session file in step with the agent: every settled message is
//! appended at its `message_end` (pi's rule: user, assistant, toolResult as
//! `message` entries; `custom` messages as `message` entries too).

use std::sync::{Arc, Mutex, PoisonError};

use pi_agent_core::{AgentEvent, AgentMessage};

use crate::messages::CodingMessage;
use crate::session::SessionManager;

/// Appends the message of every `message_end` to `session`.
pub(crate) fn persist_listener(
    session: Arc<Mutex<SessionManager>>,
) -> impl Fn(&AgentEvent<CodingMessage>) + Send + Sync + 'static {
    move |event| {
        let AgentEvent::MessageEnd { message } = event else {
            return;
        };
        match message {
            AgentMessage::Custom(
                CodingMessage::BranchSummary(_) | CodingMessage::CompactionSummary(_),
            ) => {
                // Summaries are written as their own entries by whoever made them.
            }
            AgentMessage::Standard(_)
            | AgentMessage::Custom(CodingMessage::BashExecution(_) | CodingMessage::Custom(_)) => {
                let mut session = session.lock().unwrap_or_else(PoisonError::into_inner);
                if let Err(e) = session.append_message(message.clone()) {
                    tracing::error!("cannot save the message to the session file: {e}");
                }
            }
        }
    }
}
