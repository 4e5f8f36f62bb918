//! `AssistantMessageEvent`: pi's streaming protocol for one assistant message.

use serde::{Deserialize, Serialize};

use super::SharedMessage;
use crate::{AssistantMessage, ToolCall};

/// How a successful stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DoneReason {
    /// The model finished its turn.
    Stop,
    /// The output token limit was reached.
    Length,
    /// The model called tools.
    ToolUse,
}

/// How a failed stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ErrorReason {
    /// The request was cancelled.
    Aborted,
    /// The request or stream failed.
    Error,
}

/// One event of an assistant message stream, serialized exactly as pi's
/// `assistantMessageEvent` objects (`{"type":"text_delta","contentIndex":0,...}`).
///
/// `partial` is a shared handle to the message being built: cloning an event
/// is cheap, and the handle always shows the latest state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum AssistantMessageEvent {
    /// The stream started.
    Start {
        /// The (empty) message.
        partial: SharedMessage,
    },
    /// A text block started at `content_index`.
    TextStart {
        /// Index of the block in `content`.
        content_index: usize,
        /// The message so far.
        partial: SharedMessage,
    },
    /// Text was appended.
    TextDelta {
        /// Index of the block in `content`.
        content_index: usize,
        /// The appended text.
        delta: String,
        /// The message so far.
        partial: SharedMessage,
    },
    /// A text block ended.
    TextEnd {
        /// Index of the block in `content`.
        content_index: usize,
        /// The whole text of the block.
        content: String,
        /// The message so far.
        partial: SharedMessage,
    },
    /// A thinking block started.
    ThinkingStart {
        /// Index of the block in `content`.
        content_index: usize,
        /// The message so far.
        partial: SharedMessage,
    },
    /// Thinking was appended.
    ThinkingDelta {
        /// Index of the block in `content`.
        content_index: usize,
        /// The appended thinking.
        delta: String,
        /// The message so far.
        partial: SharedMessage,
    },
    /// A thinking block ended.
    ThinkingEnd {
        /// Index of the block in `content`.
        content_index: usize,
        /// The whole thinking text of the block.
        content: String,
        /// The message so far.
        partial: SharedMessage,
    },
    /// A tool call started (id and name known).
    #[serde(rename = "toolcall_start")]
    ToolCallStart {
        /// Index of the block in `content`.
        content_index: usize,
        /// The message so far.
        partial: SharedMessage,
    },
    /// A fragment of the tool call's JSON arguments arrived.
    #[serde(rename = "toolcall_delta")]
    ToolCallDelta {
        /// Index of the block in `content`.
        content_index: usize,
        /// The raw JSON fragment.
        delta: String,
        /// The message so far (arguments parsed best-effort).
        partial: SharedMessage,
    },
    /// A tool call is complete.
    #[serde(rename = "toolcall_end")]
    ToolCallEnd {
        /// Index of the block in `content`.
        content_index: usize,
        /// The complete call with its parsed arguments (boxed, as the
        /// terminal messages are, so every event stays small to move).
        #[serde(with = "tagged_tool_call")]
        tool_call: Box<ToolCall>,
        /// The message so far.
        partial: SharedMessage,
    },
    /// The stream ended successfully.
    Done {
        /// Why it ended.
        reason: DoneReason,
        /// The settled message.
        #[serde(with = "boxed_assistant")]
        message: Box<AssistantMessage>,
    },
    /// The stream failed or was cancelled.
    Error {
        /// `error` or `aborted`.
        reason: ErrorReason,
        /// The settled message, with `errorMessage` and the partial content kept.
        #[serde(with = "boxed_assistant")]
        error: Box<AssistantMessage>,
    },
}

impl AssistantMessageEvent {
    /// The `type` discriminant as written in JSON.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Start { .. } => "start",
            Self::TextStart { .. } => "text_start",
            Self::TextDelta { .. } => "text_delta",
            Self::TextEnd { .. } => "text_end",
            Self::ThinkingStart { .. } => "thinking_start",
            Self::ThinkingDelta { .. } => "thinking_delta",
            Self::ThinkingEnd { .. } => "thinking_end",
            Self::ToolCallStart { .. } => "toolcall_start",
            Self::ToolCallDelta { .. } => "toolcall_delta",
            Self::ToolCallEnd { .. } => "toolcall_end",
            Self::Done { .. } => "done",
            Self::Error { .. } => "error",
        }
    }

    /// True for `done` and `error`, the events that end a stream.
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Done { .. } | Self::Error { .. })
    }

    /// The final message of a terminal event.
    pub fn final_message(&self) -> Option<&AssistantMessage> {
        match self {
            Self::Done { message, .. } => Some(message.as_ref()),
            Self::Error { error, .. } => Some(error.as_ref()),
            Self::Start { .. }
            | Self::TextStart { .. }
            | Self::TextDelta { .. }
            | Self::TextEnd { .. }
            | Self::ThinkingStart { .. }
            | Self::ThinkingDelta { .. }
            | Self::ThinkingEnd { .. }
            | Self::ToolCallStart { .. }
            | Self::ToolCallDelta { .. }
            | Self::ToolCallEnd { .. } => None,
        }
    }

    /// The shared partial message of a non-terminal event.
    pub fn partial(&self) -> Option<&SharedMessage> {
        match self {
            Self::Start { partial }
            | Self::TextStart { partial, .. }
            | Self::TextDelta { partial, .. }
            | Self::TextEnd { partial, .. }
            | Self::ThinkingStart { partial, .. }
            | Self::ThinkingDelta { partial, .. }
            | Self::ThinkingEnd { partial, .. }
            | Self::ToolCallStart { partial, .. }
            | Self::ToolCallDelta { partial, .. }
            | Self::ToolCallEnd { partial, .. } => Some(partial),
            Self::Done { .. } | Self::Error { .. } => None,
        }
    }
}

/// Writes a tool call with its `"type":"toolCall"` tag, as in content.
mod tagged_tool_call {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::ToolCall;

    #[derive(Serialize)]
    #[serde(tag = "type", rename_all = "camelCase")]
    enum Ref<'a> {
        ToolCall(&'a ToolCall),
    }

    #[derive(Deserialize)]
    #[serde(tag = "type", rename_all = "camelCase")]
    enum Owned {
        ToolCall(ToolCall),
    }

    pub(super) fn serialize<S: Serializer>(
        call: &ToolCall,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        Ref::ToolCall(call).serialize(serializer)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Box<ToolCall>, D::Error> {
        let Owned::ToolCall(call) = Owned::deserialize(deserializer)?;
        Ok(Box::new(call))
    }
}

/// A boxed assistant message written with its `"role"` tag.
mod boxed_assistant {
    use serde::{Deserializer, Serializer};

    use crate::AssistantMessage;

    pub(super) fn serialize<S: Serializer>(
        message: &AssistantMessage,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        crate::tagged::assistant::serialize(message, serializer)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Box<AssistantMessage>, D::Error> {
        crate::tagged::assistant::deserialize(deserializer).map(Box::new)
    }
}
