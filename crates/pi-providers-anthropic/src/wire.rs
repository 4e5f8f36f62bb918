//! Typed serde structs of the Anthropic Messages wire: the request body
//! (`POST /v1/messages`) and the SSE stream events.
//!
//! Request structs serialize fields in the order pi's request bodies have
//! them; optional fields are omitted, never `null`. Their texts borrow from
//! the context where they go out unchanged, so a long transcript is not
//! copied into the request before it is encoded. Stream structs borrow
//! their text from the frame when it has no escapes, so decoding a delta
//! allocates only what the event sink keeps.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The request body of `POST /v1/messages`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessagesRequest<'a> {
    /// Model id.
    pub model: String,
    /// The conversation, alternating user and assistant turns.
    pub messages: Vec<MessageParam<'a>>,
    /// Output token limit (thinking included).
    pub max_tokens: u64,
    /// Always true: pi streams every call.
    pub stream: bool,
    /// System prompt blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<Vec<TextBlock<'a>>>,
    /// Sampling temperature (never sent with thinking).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Tool definitions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ToolParam>>,
    /// Extended thinking configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<ThinkingParam>,
    /// Effort of adaptive thinking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_config: Option<OutputConfig>,
    /// Request metadata (`user_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// Which tools the model may or must call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
}

/// Who speaks a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user (also carries tool results).
    User,
    /// The model.
    Assistant,
}

/// One turn of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageParam<'a> {
    /// Who speaks.
    pub role: Role,
    /// A plain string or content blocks.
    pub content: MessageContent<'a>,
}

/// Turn content: a plain string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MessageContent<'a> {
    /// Plain text.
    Text(Cow<'a, str>),
    /// Content blocks.
    Blocks(Vec<ContentBlock<'a>>),
}

/// A prompt-cache breakpoint: `{type:"ephemeral", ttl?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheControl {
    /// Always `ephemeral`.
    #[serde(rename = "type")]
    pub kind: CacheControlKind,
    /// `1h` for long retention; absent for the default five minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<String>,
}

/// The only cache-control type the API knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheControlKind {
    /// Ephemeral cache entry.
    Ephemeral,
}

/// A text block `{type:"text", text, cache_control?}` (also a system block).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "text")]
pub struct TextBlock<'a> {
    /// The text.
    pub text: Cow<'a, str>,
    /// Cache breakpoint after this block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

/// A base64 image source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageSource<'a> {
    /// Always `base64`.
    #[serde(rename = "type")]
    pub kind: ImageSourceKind,
    /// MIME type (`image/png`, ...).
    pub media_type: Cow<'a, str>,
    /// Base64 bytes.
    pub data: Cow<'a, str>,
}

/// The image source types pi sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageSourceKind {
    /// Inline base64 data.
    Base64,
}

/// A content block of a request turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock<'a> {
    /// Text.
    Text {
        /// The text.
        text: Cow<'a, str>,
        /// Cache breakpoint after this block.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// An image.
    Image {
        /// The image data.
        source: ImageSource<'a>,
        /// Cache breakpoint after this block.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// Signed reasoning replayed to the model that produced it.
    Thinking {
        /// The reasoning text.
        thinking: Cow<'a, str>,
        /// Its signature.
        signature: Cow<'a, str>,
    },
    /// Encrypted reasoning replayed as is.
    RedactedThinking {
        /// The opaque payload.
        data: Cow<'a, str>,
    },
    /// A tool call the model made.
    ToolUse {
        /// Call id.
        id: Cow<'a, str>,
        /// Tool name.
        name: Cow<'a, str>,
        /// Arguments object.
        input: Cow<'a, Value>,
    },
    /// The result of a tool call.
    ToolResult {
        /// Id of the call answered.
        tool_use_id: Cow<'a, str>,
        /// Result text, or blocks when there are images.
        content: MessageContent<'a>,
        /// True when the tool failed.
        is_error: bool,
        /// Cache breakpoint after this block.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
}

impl ContentBlock<'_> {
    /// Sets the cache breakpoint of a text, image or tool-result block;
    /// returns false (and changes nothing) for other blocks.
    pub fn set_cache_control(&mut self, value: CacheControl) -> bool {
        match self {
            Self::Text { cache_control, .. }
            | Self::Image { cache_control, .. }
            | Self::ToolResult { cache_control, .. } => {
                *cache_control = Some(value);
                true
            }
            Self::Thinking { .. } | Self::RedactedThinking { .. } | Self::ToolUse { .. } => false,
        }
    }
}

impl MessageParam<'_> {
    /// The same turn owning its texts.
    pub fn into_owned(self) -> MessageParam<'static> {
        MessageParam {
            role: self.role,
            content: self.content.into_owned(),
        }
    }
}

impl MessageContent<'_> {
    /// The same content owning its texts.
    pub fn into_owned(self) -> MessageContent<'static> {
        match self {
            Self::Text(text) => MessageContent::Text(owned(text)),
            Self::Blocks(blocks) => {
                MessageContent::Blocks(blocks.into_iter().map(ContentBlock::into_owned).collect())
            }
        }
    }
}

impl ContentBlock<'_> {
    /// The same block owning its texts.
    pub fn into_owned(self) -> ContentBlock<'static> {
        match self {
            Self::Text {
                text,
                cache_control,
            } => ContentBlock::Text {
                text: owned(text),
                cache_control,
            },
            Self::Image {
                source,
                cache_control,
            } => ContentBlock::Image {
                source: ImageSource {
                    kind: source.kind,
                    media_type: owned(source.media_type),
                    data: owned(source.data),
                },
                cache_control,
            },
            Self::Thinking {
                thinking,
                signature,
            } => ContentBlock::Thinking {
                thinking: owned(thinking),
                signature: owned(signature),
            },
            Self::RedactedThinking { data } => ContentBlock::RedactedThinking { data: owned(data) },
            Self::ToolUse { id, name, input } => ContentBlock::ToolUse {
                id: owned(id),
                name: owned(name),
                input: Cow::Owned(input.into_owned()),
            },
            Self::ToolResult {
                tool_use_id,
                content,
                is_error,
                cache_control,
            } => ContentBlock::ToolResult {
                tool_use_id: owned(tool_use_id),
                content: content.into_owned(),
                is_error,
                cache_control,
            },
        }
    }
}

/// A text owned, so it outlives what it was borrowed from.
fn owned(text: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(text.into_owned())
}

/// A tool definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolParam {
    /// Tool name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Stream the arguments without server-side buffering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eager_input_streaming: Option<bool>,
    /// JSON schema of the arguments.
    pub input_schema: InputSchema,
    /// Cache breakpoint after this tool (the last one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

/// `{type:"object", properties, required}`: all pi keeps of a tool schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputSchema {
    /// Always `object`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Property schemas, verbatim.
    pub properties: Value,
    /// Required property names, verbatim.
    pub required: Value,
}

/// How much the model may think.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ThinkingParam {
    /// Budget-based thinking.
    Enabled {
        /// Token budget.
        budget_tokens: u64,
        /// `summarized` or `omitted`.
        display: String,
    },
    /// The model decides how much to think (Opus/Sonnet 4.6 and later).
    Adaptive {
        /// `summarized` or `omitted`.
        display: String,
    },
    /// Thinking off.
    Disabled,
}

/// `{effort}` for adaptive thinking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputConfig {
    /// `low`, `medium`, `high`, `xhigh` or `max`.
    pub effort: String,
}

/// `{user_id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// Opaque end-user id.
    pub user_id: String,
}

/// `tool_choice`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// Some tool must be called.
    Any,
    /// No tool may be called.
    None,
    /// This tool must be called.
    Tool {
        /// Tool name.
        name: String,
    },
}

/// One stream event (`data:` of a frame whose `event:` is a message event).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent<'a> {
    /// The message started; carries its id and the input usage.
    MessageStart {
        /// The message shell.
        #[serde(borrow)]
        message: MessageStart<'a>,
    },
    /// A content block opened.
    ContentBlockStart {
        /// Wire index of the block.
        index: u64,
        /// The block's initial state.
        #[serde(borrow)]
        content_block: BlockStart<'a>,
    },
    /// A content block grew.
    ContentBlockDelta {
        /// Wire index of the block.
        index: u64,
        /// What was appended.
        #[serde(borrow)]
        delta: BlockDelta<'a>,
    },
    /// A content block closed.
    ContentBlockStop {
        /// Wire index of the block.
        index: u64,
    },
    /// Stop reason and cumulative usage.
    MessageDelta {
        /// The stop reason.
        #[serde(borrow)]
        delta: MessageDeltaBody<'a>,
        /// Cumulative usage.
        #[serde(default)]
        usage: Option<WireUsage>,
    },
    /// The message is complete.
    MessageStop,
}

/// The `message` of `message_start`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MessageStart<'a> {
    /// Message id (`msg_...`).
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    /// Usage so far (input tokens, cache reads and writes).
    #[serde(default)]
    pub usage: Option<WireUsage>,
}

/// Token counts; every field may be absent or `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub struct WireUsage {
    /// Uncached input tokens.
    #[serde(default)]
    pub input_tokens: Option<u64>,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: Option<u64>,
    /// Input tokens read from the cache.
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
    /// Input tokens written to the cache.
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
}

/// The initial state of a content block.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BlockStart<'a> {
    /// Text.
    Text,
    /// Reasoning.
    Thinking,
    /// Encrypted reasoning, complete at once.
    RedactedThinking {
        /// The opaque payload.
        #[serde(borrow)]
        data: Cow<'a, str>,
    },
    /// A tool call.
    ToolUse {
        /// Call id.
        #[serde(borrow)]
        id: Cow<'a, str>,
        /// Tool name.
        #[serde(borrow)]
        name: Cow<'a, str>,
        /// Initial arguments (normally `{}`; streamed as JSON deltas).
        #[serde(default)]
        input: Option<Value>,
    },
    /// Server tools, citations and other blocks pi ignores.
    #[serde(other)]
    Other,
}

/// What a `content_block_delta` appends.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BlockDelta<'a> {
    /// Text.
    TextDelta {
        /// The appended text.
        #[serde(borrow)]
        text: Cow<'a, str>,
    },
    /// Reasoning.
    ThinkingDelta {
        /// The appended reasoning.
        #[serde(borrow)]
        thinking: Cow<'a, str>,
    },
    /// A fragment of a tool call's JSON arguments.
    InputJsonDelta {
        /// The fragment.
        #[serde(borrow)]
        partial_json: Cow<'a, str>,
    },
    /// A fragment of a thinking block's signature.
    SignatureDelta {
        /// The fragment.
        #[serde(borrow)]
        signature: Cow<'a, str>,
    },
    /// Citations and other deltas pi ignores.
    #[serde(other)]
    Other,
}

/// The `delta` of `message_delta`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MessageDeltaBody<'a> {
    /// Why the message stopped.
    #[serde(default, borrow)]
    pub stop_reason: Option<Cow<'a, str>>,
}
