//! The events of an agent run as extensions hear them (pi 0.73.1's
//! `agent_start` ... `agent_end`, `context`, the provider request and
//! response, `tool_call` and `tool_result`), and their results. Messages
//! are shared (`Arc`), so a handler's copy of an event costs no copy of
//! the transcript.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use pi_agent_core::{AgentMessage, AgentToolResult};
use pi_ai::{AssistantMessageEvent, ImageContent, UserBlock};

use super::events::{Event, event};
use crate::messages::CodingMessage;

/// A message of the coding agent's transcript.
pub type Message = AgentMessage<CodingMessage>;

/// After the user submitted a prompt, before the run: may add a message
/// and change the system prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BeforeAgentStartEvent {
    /// The prompt's text (after expansion).
    pub prompt: String,
    /// Its images.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images: Option<Vec<ImageContent>>,
    /// The system prompt so far (earlier handlers' changes included).
    pub system_prompt: String,
    /// What the system prompt was built from.
    pub system_prompt_options: Value,
}
event!(
    BeforeAgentStartEvent,
    "before_agent_start",
    BeforeAgentStartResult
);

/// `before_agent_start`'s answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BeforeAgentStartResult {
    /// A message to add after the prompt (saved, sent to the model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<NewCustomMessage>,
    /// The system prompt for this run (chained across handlers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
}

/// A custom message an extension sends (pi's `customType`, `content`,
/// `display`, `details`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NewCustomMessage {
    /// The extension's message kind.
    pub custom_type: String,
    /// Text or text/image blocks.
    pub content: pi_ai::UserContent,
    /// Whether the terminal shows it.
    pub display: bool,
    /// Extension data, never sent to the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

impl NewCustomMessage {
    /// The transcript's `custom` message, stamped now.
    pub fn into_message(self) -> Message {
        AgentMessage::Custom(CodingMessage::Custom(crate::messages::CustomMessage {
            custom_type: self.custom_type,
            content: self.content,
            display: self.display,
            details: self.details,
            timestamp: pi_ai::now_ms(),
            ..Default::default()
        }))
    }
}

/// A run started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct AgentStartEvent {}
event!(AgentStartEvent, "agent_start", ());

/// A run ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentEndEvent {
    /// The messages the run added.
    pub messages: Arc<[Message]>,
}
event!(AgentEndEvent, "agent_end", ());

/// A turn started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnStartEvent {
    /// 0 for the run's first turn.
    pub turn_index: u32,
    /// Unix time in milliseconds.
    pub timestamp: i64,
}
event!(TurnStartEvent, "turn_start", ());

/// A turn ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnEndEvent {
    /// 0 for the run's first turn.
    pub turn_index: u32,
    /// The turn's assistant message.
    pub message: Arc<Message>,
    /// Its tool results (`role: "toolResult"` messages).
    pub tool_results: Arc<[Message]>,
}
event!(TurnEndEvent, "turn_end", ());

/// A message started.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MessageStartEvent {
    /// The message.
    pub message: Arc<Message>,
}
event!(MessageStartEvent, "message_start", ());

/// The streaming assistant message changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageUpdateEvent {
    /// The partial message.
    pub message: Arc<Message>,
    /// The provider event behind the change.
    pub assistant_message_event: Arc<AssistantMessageEvent>,
}
event!(MessageUpdateEvent, "message_update", ());

/// A message is complete; a handler may replace it (same role).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MessageEndEvent {
    /// The message (as replaced by earlier handlers).
    pub message: Arc<Message>,
}
event!(MessageEndEvent, "message_end", MessageEndResult);

/// `message_end`'s answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MessageEndResult {
    /// The replacement (must keep the role).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
}

/// A tool call is about to be prepared and run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecutionStartEvent {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// The arguments as the model sent them.
    pub args: Value,
}
event!(ToolExecutionStartEvent, "tool_execution_start", ());

/// A running tool reported a partial result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecutionUpdateEvent {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// The arguments.
    pub args: Value,
    /// The partial result.
    pub partial_result: AgentToolResult,
}
event!(ToolExecutionUpdateEvent, "tool_execution_update", ());

/// A tool call finished.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecutionEndEvent {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// The result.
    pub result: AgentToolResult,
    /// The call failed.
    pub is_error: bool,
}
event!(ToolExecutionEndEvent, "tool_execution_end", ());

/// Before each model call: the messages to send. They are shared, not
/// copied (copy-on-write): a handler that changes them takes its own copy
/// (`Arc::unwrap_or_clone(event.messages)`) and returns it; nothing it
/// does reaches the session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextEvent {
    /// The transcript as the previous handler left it.
    pub messages: Arc<Vec<Message>>,
}
event!(ContextEvent, "context", ContextResult);

/// `context`'s answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ContextResult {
    /// The messages to send instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<Message>>,
}

/// The provider payload, right before it is sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BeforeProviderRequestEvent {
    /// The request body (as earlier handlers left it).
    pub payload: Value,
}
event!(BeforeProviderRequestEvent, "before_provider_request", Value);

/// The provider's HTTP response arrived (before its body is read).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AfterProviderResponseEvent {
    /// The HTTP status.
    pub status: u16,
    /// The headers, lower-cased names.
    pub headers: BTreeMap<String, String>,
}
event!(AfterProviderResponseEvent, "after_provider_response", ());

/// Before a tool runs: may block it, or change its input.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallEvent {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// The validated arguments, as earlier handlers changed them.
    pub input: Value,
}
event!(ToolCallEvent, "tool_call", ToolCallResult);

/// `tool_call`'s answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolCallResult {
    /// Do not run the tool.
    pub block: bool,
    /// Why (the error result's text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The arguments to run with instead: Rust's form of pi's in-place
    /// change of `event.input` (later handlers and the tool see them; they
    /// are not validated again).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
}

/// After a tool ran: may change its result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultEvent {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// The arguments it ran with.
    pub input: Value,
    /// The result's content (as earlier handlers left it).
    pub content: Vec<UserBlock>,
    /// Its details.
    pub details: Value,
    /// Whether it failed.
    pub is_error: bool,
}
event!(ToolResultEvent, "tool_result", ToolResultPatch);

/// `tool_result`'s answer: the fields to replace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolResultPatch {
    /// New content.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<UserBlock>>,
    /// New details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// New error flag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
}
