//! `AgentEvent`: pi's agent lifecycle events, serialized with pi's names and
//! fields (`{"type":"message_update","assistantMessageEvent":{...},"message":{...}}`),
//! and the sink the low-level loop emits them into.

use std::future::Future;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use pi_ai::{AssistantMessage, AssistantMessageEvent, SharedMessage, ToolResultMessage};

use crate::message::{AgentMessage, CustomMessage, NoCustom};
use crate::tool::AgentToolResult;

/// One event of an agent run.
///
/// Order (pi's): `agent_start`, `turn_start`, the prompts' `message_start` /
/// `message_end`, the assistant's `message_start` / `message_update`* /
/// `message_end`, per tool call `tool_execution_start` /
/// `tool_execution_update`* / `tool_execution_end`, the tool results'
/// `message_start` / `message_end` (in call order), `turn_end`, further
/// turns, `agent_end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase",
    bound = "C: CustomMessage"
)]
pub enum AgentEvent<C = NoCustom> {
    /// A run started.
    AgentStart,
    /// A run ended; no further events follow.
    AgentEnd {
        /// The messages this run added, in order.
        messages: Vec<AgentMessage<C>>,
    },
    /// A turn (one assistant response and its tool calls) started.
    TurnStart,
    /// A turn ended.
    TurnEnd {
        /// The turn's assistant message.
        #[serde(with = "pi_ai::tagged::assistant")]
        message: AssistantMessage,
        /// Its tool results, in call order.
        #[serde(with = "tagged_tool_results")]
        tool_results: Vec<ToolResultMessage>,
    },
    /// A message started: a prompt, an injected message, a tool result, or
    /// the assistant message whose stream just started.
    MessageStart {
        /// The message (for the assistant: its state at `start`).
        message: AgentMessage<C>,
    },
    /// The streaming assistant message changed.
    MessageUpdate {
        /// The provider event behind the change.
        assistant_message_event: AssistantMessageEvent,
        /// The partial message, shared with the stream (not a copy).
        message: SharedMessage,
    },
    /// A message is complete (for the assistant: the settled message).
    MessageEnd {
        /// The final message.
        message: AgentMessage<C>,
    },
    /// A tool call is about to be prepared and run.
    ToolExecutionStart {
        /// The call's id.
        tool_call_id: String,
        /// The tool's name.
        tool_name: String,
        /// The arguments as the model sent them.
        args: Value,
    },
    /// A running tool reported a partial result.
    ToolExecutionUpdate {
        /// The call's id.
        tool_call_id: String,
        /// The tool's name.
        tool_name: String,
        /// The arguments as the model sent them.
        args: Value,
        /// The partial result.
        partial_result: AgentToolResult,
    },
    /// A tool call finished (in parallel mode: in completion order).
    ToolExecutionEnd {
        /// The call's id.
        tool_call_id: String,
        /// The tool's name.
        tool_name: String,
        /// The final result.
        result: AgentToolResult,
        /// True when the call failed.
        is_error: bool,
    },
}

impl<C> AgentEvent<C> {
    /// The `type` discriminant as written in JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::AgentStart => "agent_start",
            Self::AgentEnd { .. } => "agent_end",
            Self::TurnStart => "turn_start",
            Self::TurnEnd { .. } => "turn_end",
            Self::MessageStart { .. } => "message_start",
            Self::MessageUpdate { .. } => "message_update",
            Self::MessageEnd { .. } => "message_end",
            Self::ToolExecutionStart { .. } => "tool_execution_start",
            Self::ToolExecutionUpdate { .. } => "tool_execution_update",
            Self::ToolExecutionEnd { .. } => "tool_execution_end",
        }
    }
}

/// Where the low-level loop delivers its events. Each call is awaited before
/// the loop goes on, so a slow sink slows the run (as in pi).
///
/// Any `FnMut(AgentEvent<C>) -> impl Future<Output = ()>` closure is a sink.
pub trait AgentEventSink<C>: Send {
    /// Delivers one event.
    fn emit(&mut self, event: AgentEvent<C>) -> impl Future<Output = ()> + Send;
}

impl<C, F, Fut> AgentEventSink<C> for F
where
    F: FnMut(AgentEvent<C>) -> Fut + Send,
    Fut: Future<Output = ()> + Send,
{
    fn emit(&mut self, event: AgentEvent<C>) -> impl Future<Output = ()> + Send {
        self(event)
    }
}

/// Writes tool results with their `"role":"toolResult"` tag.
mod tagged_tool_results {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use pi_ai::ToolResultMessage;

    #[derive(Serialize)]
    #[serde(tag = "role", rename_all = "camelCase")]
    enum Ref<'a> {
        ToolResult(&'a ToolResultMessage),
    }

    #[derive(Deserialize)]
    #[serde(tag = "role", rename_all = "camelCase")]
    enum Owned {
        ToolResult(ToolResultMessage),
    }

    pub(super) fn serialize<S: Serializer>(
        results: &[ToolResultMessage],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(results.iter().map(Ref::ToolResult))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<ToolResultMessage>, D::Error> {
        let owned = Vec::<Owned>::deserialize(deserializer)?;
        Ok(owned
            .into_iter()
            .map(|Owned::ToolResult(result)| result)
            .collect())
    }
}
