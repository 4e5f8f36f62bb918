//! How a run records what it adds: a message's `message_start` /
//! `message_end` around `finalize_message`, the settled assistant message,
//! and the end of a turn with `should_stop_after_turn`.

use pi_ai::{AssistantMessage, Message, ToolResultMessage};

use super::Run;
use crate::events::{AgentEvent, AgentEventSink};
use crate::finalize;
use crate::hooks::ShouldStopAfterTurnContext;
use crate::message::{AgentMessage, CustomMessage};

impl<C: CustomMessage> Run<'_, C> {
    /// Emits `message_start` and `message_end` for a prompt, steering or
    /// follow-up message and appends it (or `finalize_message`'s
    /// replacement) to the transcript and the run's new messages.
    pub(super) async fn add_message(
        &mut self,
        mut message: AgentMessage<C>,
        emit: &mut impl AgentEventSink<C>,
    ) {
        emit.emit(AgentEvent::MessageStart {
            message: message.clone(),
        })
        .await;
        let hook = self.config.finalize_message.as_ref();
        if let Some(replacement) = finalize::replacement(hook, &message, &self.cancel).await {
            message = replacement;
        }
        emit.emit(AgentEvent::MessageEnd {
            message: message.clone(),
        })
        .await;
        self.messages.push(message.clone());
        self.new_messages.push(message);
    }

    /// Appends the settled assistant message (or `finalize_message`'s
    /// replacement, which is what the caller gets back: the tools, the
    /// turn and the next call see it) to the transcript, replacing the
    /// streaming partial, and emits `message_end` (and `message_start` if
    /// the stream never started).
    pub(super) async fn settle(
        &mut self,
        mut message: AssistantMessage,
        started: bool,
        emit: &mut impl AgentEventSink<C>,
    ) -> AssistantMessage {
        let mut agent_message = AgentMessage::from(Message::Assistant(message.clone()));
        if !started {
            emit.emit(AgentEvent::MessageStart {
                message: agent_message.clone(),
            })
            .await;
        }
        let hook = self.config.finalize_message.as_ref();
        if let Some(replacement) = finalize::replacement(hook, &agent_message, &self.cancel).await {
            if let Some(assistant) = replacement.as_assistant() {
                message = assistant.clone();
            }
            agent_message = replacement;
        }
        self.messages.push(agent_message.clone());
        emit.emit(AgentEvent::MessageEnd {
            message: agent_message,
        })
        .await;
        message
    }

    /// Emits `turn_end`, then asks `should_stop_after_turn` (if set)
    /// whether the run stops here.
    pub(super) async fn end_turn(
        &self,
        message: AssistantMessage,
        tool_results: Vec<ToolResultMessage>,
        emit: &mut impl AgentEventSink<C>,
    ) -> bool {
        let Some(hook) = &self.config.should_stop_after_turn else {
            emit.emit(AgentEvent::TurnEnd {
                message,
                tool_results,
            })
            .await;
            return false;
        };
        emit.emit(AgentEvent::TurnEnd {
            message: message.clone(),
            tool_results: tool_results.clone(),
        })
        .await;
        let context = ShouldStopAfterTurnContext {
            message: &message,
            tool_results: &tool_results,
            messages: &self.messages,
            new_messages: &self.new_messages,
        };
        hook.should_stop(context).await
    }
}
