//! `AgentTool`: a tool the model can call, with its JSON Schema, an async
//! `execute` and a result of content blocks plus typed `details`.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use pi_ai::{CancellationToken, Tool, UserBlock};

use crate::validation::ArgumentConversion;

/// The text of a tool result for a call skipped because the user queued a
/// steering message (pi's wording).
pub const SKIPPED_FOR_STEERING_MESSAGE: &str = "Skipped due to queued user message.";

/// The default text of a tool result for a call that `before_tool_call` blocked.
pub const BLOCKED_MESSAGE: &str = "Tool execution was blocked";

/// The text of a tool result for a call that the run's cancellation stopped
/// (or never started) without the tool reporting its own result.
pub const TOOL_ABORTED_MESSAGE: &str = "Tool execution was aborted";

/// What a tool returns: content for the model (text and images) and
/// `details` for the app (UI, logs; never sent to the model).
///
/// Serialized as pi writes it: `{"content":[...],"details":...}`, where a
/// `null` `details` and an unset `terminate` are left out (pi's `undefined`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AgentToolResult {
    /// Text and image blocks shown to the model.
    pub content: Vec<UserBlock>,
    /// Tool-specific structured data; `Value::Null` means none.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub details: Value,
    /// pi's early-termination hint: when every finalized result of a tool
    /// batch sets it to `true`, the loop makes no further model call for
    /// that batch (queued steering and follow-up messages still start
    /// another turn). `None` and `Some(false)` keep the loop going.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminate: Option<bool>,
}

impl AgentToolResult {
    /// A result with one text block and no details.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![UserBlock::text(text)],
            details: Value::Null,
            terminate: None,
        }
    }

    /// A result with the given content and typed details (serialized to JSON;
    /// details that fail to serialize are recorded as `null`).
    pub fn with_details<D: Serialize>(content: Vec<UserBlock>, details: &D) -> Self {
        let details = serde_json::to_value(details).unwrap_or_else(|e| {
            tracing::warn!("tool details do not serialize ({e}); dropping them");
            Value::Null
        });
        Self {
            content,
            details,
            terminate: None,
        }
    }

    /// This result with the early-termination hint set (see
    /// [`AgentToolResult::terminate`]).
    #[must_use]
    pub fn terminating(mut self) -> Self {
        self.terminate = Some(true);
        self
    }

    /// The result the loop records for a failed call: the message as text and
    /// `details: {}` (as pi does).
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![UserBlock::text(message)],
            details: Value::Object(serde_json::Map::new()),
            terminate: None,
        }
    }
}

/// A tool failure. Its message becomes the text of an `isError` tool result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// A failure with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message shown to the model.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        Self::new(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

impl From<std::io::Error> for ToolError {
    fn from(error: std::io::Error) -> Self {
        Self::new(error.to_string())
    }
}

impl From<serde_json::Error> for ToolError {
    fn from(error: serde_json::Error) -> Self {
        Self::new(error.to_string())
    }
}

/// Reports a partial result while a tool runs; each call becomes a
/// `tool_execution_update` event. Cheap to clone and may be moved into
/// spawned tasks.
pub type ToolUpdateFn = Arc<dyn Fn(AgentToolResult) + Send + Sync>;

/// A callback that drops every update (for calling a tool outside the loop).
pub fn ignore_updates() -> ToolUpdateFn {
    Arc::new(|_| {})
}

/// A tool the agent can execute.
///
/// The loop validates the arguments against [`AgentTool::parameters`]
/// (with pi's type coercion) before calling [`AgentTool::execute`]; an
/// unknown tool, invalid arguments and an `Err` all become `isError` tool
/// results the model reads, never a crash.
#[async_trait]
pub trait AgentTool: Send + Sync {
    /// The name the model calls it by.
    fn name(&self) -> &str;

    /// A human-readable label for the UI.
    fn label(&self) -> &str;

    /// What the tool does, for the model.
    fn description(&self) -> &str;

    /// JSON Schema of the arguments object.
    fn parameters(&self) -> &Value;

    /// Runs one call. `args` are the validated (and coerced) arguments.
    /// `cancel` fires when the run is aborted: a tool should stop and return
    /// promptly (an `Err` such as "Command aborted" is recorded as the
    /// result). `on_update` streams partial results.
    async fn execute(
        &self,
        call_id: &str,
        args: Value,
        cancel: CancellationToken,
        on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError>;

    /// pi's `prepareArguments`: adapts the arguments the model sent before
    /// they are validated against [`AgentTool::parameters`] (for example an
    /// older argument shape, or an array the model sent as a JSON string).
    ///
    /// Changes made to `arguments` in place are also made to the tool call
    /// recorded in the assistant message, so that form is what the model sees
    /// when the transcript is replayed (as pi's in-place edits of the call's
    /// arguments object are). A returned value is validated and executed
    /// instead, leaving the recorded call as the model sent it. The default
    /// changes nothing.
    fn prepare_arguments(&self, arguments: &mut Value) -> Option<Value> {
        let _ = arguments;
        None
    }

    /// How the arguments are converted before validation: pi converts the
    /// arguments of its built-in tools (TypeBox schemas) with TypeBox, those
    /// of other tools with its JSON-Schema coercion (the default).
    fn argument_conversion(&self) -> ArgumentConversion {
        ArgumentConversion::JsonSchema
    }

    /// pi's per-tool `executionMode`: `Sequential` makes every batch that
    /// calls this tool run one call at a time, whatever the agent's mode.
    /// The default (`None`) follows the agent.
    fn execution_mode(&self) -> Option<ToolExecutionMode> {
        None
    }

    /// The declaration sent to the model.
    fn to_tool(&self) -> Tool {
        Tool {
            name: self.name().to_owned(),
            description: self.description().to_owned(),
            parameters: self.parameters().clone(),
        }
    }
}

impl fmt::Debug for dyn AgentTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentTool")
            .field("name", &self.name())
            .finish_non_exhaustive()
    }
}

/// How the tool calls of one assistant message run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolExecutionMode {
    /// Prepared one by one, then executed concurrently; `tool_execution_end`
    /// follows completion order, tool results follow call order (pi's default).
    #[default]
    Parallel,
    /// Each call is prepared, executed and finalized before the next starts.
    Sequential,
}
