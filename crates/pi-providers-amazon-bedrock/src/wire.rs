//! The typed JSON of the ConverseStream wire: the request body as the AWS
//! SDK serializes pi's command input (camelCase members, one-key union
//! objects such as `{"text": ...}` / `{"toolUse": {...}}`, image bytes in
//! base64, absent members omitted), and the payloads of the stream's events.
//! The request's texts borrow from the context where they go out unchanged,
//! so a long transcript is not copied into the request before it is encoded.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

/// The ConverseStream request body (the model id travels in the URL path).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConverseStreamRequest<'a> {
    /// The conversation.
    pub messages: Vec<Message<'a>>,
    /// System prompt blocks (text, then a cache point where pi adds one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<Vec<SystemBlock<'a>>>,
    /// `maxTokens` / `temperature`; sent even when empty, as pi does.
    pub inference_config: InferenceConfig,
    /// Tools and tool choice.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_config: Option<ToolConfig>,
    /// Model-specific fields (Claude thinking settings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_model_request_fields: Option<Value>,
    /// Request metadata for cost attribution.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_metadata: Option<BTreeMap<String, String>>,
}

/// `inferenceConfig`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InferenceConfig {
    /// Output limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message<'a> {
    /// `user` or `assistant`.
    pub role: Role,
    /// Its blocks.
    pub content: Vec<ContentBlock<'a>>,
}

/// A message role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user (also the carrier of tool results).
    User,
    /// The model.
    Assistant,
}

/// One content block: a union object with exactly one member.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ContentBlock<'a> {
    /// `{"text": ...}`.
    Text(Cow<'a, str>),
    /// `{"image": {"format", "source": {"bytes"}}}`.
    Image(ImageBlock<'a>),
    /// `{"toolUse": {"toolUseId", "name", "input"}}`.
    ToolUse(ToolUse<'a>),
    /// `{"toolResult": {"toolUseId", "content", "status"}}`.
    ToolResult(ToolResult<'a>),
    /// `{"reasoningContent": {"reasoningText": {"text", "signature"?}}}`.
    ReasoningContent(ReasoningContent<'a>),
    /// `{"cachePoint": {"type": "default", "ttl"?}}`.
    CachePoint(CachePoint),
}

/// A system prompt block.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SystemBlock<'a> {
    /// `{"text": ...}`.
    Text(Cow<'a, str>),
    /// `{"cachePoint": {...}}`.
    CachePoint(CachePoint),
}

/// A prompt-cache breakpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CachePoint {
    /// Always `default`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `1h` for long retention.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl: Option<&'static str>,
}

/// An image.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImageBlock<'a> {
    /// The format named by the MIME type.
    pub format: ImageFormat,
    /// The bytes.
    pub source: ImageSource<'a>,
}

/// An image format; a MIME type Bedrock does not take fails the encoding
/// with pi's `Unknown image type: <mime>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageFormat {
    /// `image/jpeg`, `image/jpg`.
    Jpeg,
    /// `image/png`.
    Png,
    /// `image/gif`.
    Gif,
    /// `image/webp`.
    Webp,
    /// Anything else (the MIME type).
    Unknown(String),
}

impl ImageFormat {
    /// The format of `mime_type`.
    pub fn of(mime_type: &str) -> Self {
        match mime_type {
            "image/jpeg" | "image/jpg" => Self::Jpeg,
            "image/png" => Self::Png,
            "image/gif" => Self::Gif,
            "image/webp" => Self::Webp,
            other => Self::Unknown(other.to_owned()),
        }
    }
}

impl Serialize for ImageFormat {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Jpeg => serializer.serialize_str("jpeg"),
            Self::Png => serializer.serialize_str("png"),
            Self::Gif => serializer.serialize_str("gif"),
            Self::Webp => serializer.serialize_str("webp"),
            Self::Unknown(mime) => Err(serde::ser::Error::custom(format_args!(
                "Unknown image type: {mime}"
            ))),
        }
    }
}

/// Image bytes (base64, as the SDK writes a blob in JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImageSource<'a> {
    /// Base64 of the image.
    pub bytes: Cow<'a, str>,
}

/// A tool call replayed to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUse<'a> {
    /// The call id.
    pub tool_use_id: Cow<'a, str>,
    /// The tool name.
    pub name: Cow<'a, str>,
    /// The arguments.
    pub input: Cow<'a, Value>,
}

/// A tool result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult<'a> {
    /// The call it answers.
    pub tool_use_id: Cow<'a, str>,
    /// Text and image blocks.
    pub content: Vec<ToolResultContent<'a>>,
    /// `success` or `error`.
    pub status: ToolResultStatus,
}

/// A tool result block.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolResultContent<'a> {
    /// `{"text": ...}`.
    Text(Cow<'a, str>),
    /// `{"image": {...}}`.
    Image(ImageBlock<'a>),
}

/// A tool result status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolResultStatus {
    /// The tool ran.
    Success,
    /// The tool failed.
    Error,
}

/// Replayed reasoning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningContent<'a> {
    /// The reasoning text.
    pub reasoning_text: ReasoningText<'a>,
}

/// Reasoning text with its signature (Claude only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReasoningText<'a> {
    /// The text.
    pub text: Cow<'a, str>,
    /// The opaque signature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<Cow<'a, str>>,
}

impl Message<'_> {
    /// The same message owning its texts.
    pub fn into_owned(self) -> Message<'static> {
        Message {
            role: self.role,
            content: self
                .content
                .into_iter()
                .map(ContentBlock::into_owned)
                .collect(),
        }
    }
}

impl ContentBlock<'_> {
    /// The same block owning its texts.
    pub fn into_owned(self) -> ContentBlock<'static> {
        match self {
            Self::Text(text) => ContentBlock::Text(owned(text)),
            Self::Image(image) => ContentBlock::Image(image.into_owned()),
            Self::ToolUse(call) => ContentBlock::ToolUse(ToolUse {
                tool_use_id: owned(call.tool_use_id),
                name: owned(call.name),
                input: Cow::Owned(call.input.into_owned()),
            }),
            Self::ToolResult(result) => ContentBlock::ToolResult(result.into_owned()),
            Self::ReasoningContent(reasoning) => ContentBlock::ReasoningContent(ReasoningContent {
                reasoning_text: ReasoningText {
                    text: owned(reasoning.reasoning_text.text),
                    signature: reasoning.reasoning_text.signature.map(owned),
                },
            }),
            Self::CachePoint(point) => ContentBlock::CachePoint(point),
        }
    }
}

impl ImageBlock<'_> {
    /// The same image owning its bytes.
    pub fn into_owned(self) -> ImageBlock<'static> {
        ImageBlock {
            format: self.format,
            source: ImageSource {
                bytes: owned(self.source.bytes),
            },
        }
    }
}

impl ToolResult<'_> {
    /// The same result owning its texts.
    pub fn into_owned(self) -> ToolResult<'static> {
        ToolResult {
            tool_use_id: owned(self.tool_use_id),
            content: self
                .content
                .into_iter()
                .map(|block| match block {
                    ToolResultContent::Text(text) => ToolResultContent::Text(owned(text)),
                    ToolResultContent::Image(image) => ToolResultContent::Image(image.into_owned()),
                })
                .collect(),
            status: self.status,
        }
    }
}

/// A text owned, so it outlives what it was borrowed from.
fn owned(text: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(text.into_owned())
}

/// `toolConfig`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolConfig {
    /// The tools.
    pub tools: Vec<ToolEntry>,
    /// The choice, when one was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoiceWire>,
}

/// `{"toolSpec": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolEntry {
    /// The tool.
    pub tool_spec: ToolSpec,
}

/// A tool's name, description and JSON schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSpec {
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// `{"json": <schema>}`.
    pub input_schema: InputSchema,
}

/// A tool's input schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputSchema {
    /// The JSON schema.
    pub json: Value,
}

/// `toolChoice` as sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ToolChoiceWire {
    /// `{"auto": {}}`.
    Auto(Empty),
    /// `{"any": {}}`.
    Any(Empty),
    /// `{"tool": {"name"}}`.
    Tool(NamedTool),
}

/// `{}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Empty {}

/// A named tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NamedTool {
    /// Its name.
    pub name: String,
}

// ---- stream events (payloads of `:event-type` messages) ----

/// `messageStart`.
#[derive(Debug, Clone, Deserialize)]
pub struct MessageStart {
    /// The role (pi requires `assistant`).
    #[serde(default)]
    pub role: Option<String>,
}

/// `contentBlockStart`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentBlockStart {
    /// The block's index in Bedrock's numbering.
    #[serde(default)]
    pub content_block_index: Option<u64>,
    /// What starts.
    #[serde(default)]
    pub start: Option<BlockStart>,
}

/// The start of a block (only tool use has one).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlockStart {
    /// A tool call.
    #[serde(default)]
    pub tool_use: Option<ToolUseStart>,
}

/// The id and name of a starting tool call.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUseStart {
    /// The call id.
    #[serde(default)]
    pub tool_use_id: Option<String>,
    /// The tool name.
    #[serde(default)]
    pub name: Option<String>,
}

/// `contentBlockDelta`, its strings borrowed from the frame where they
/// hold no escapes.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentBlockDelta<'a> {
    /// The block's index in Bedrock's numbering.
    #[serde(default)]
    pub content_block_index: Option<u64>,
    /// The delta.
    #[serde(default, borrow)]
    pub delta: Option<Delta<'a>>,
}

/// One delta: text, tool input or reasoning.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Delta<'a> {
    /// Text.
    #[serde(default, borrow)]
    pub text: Option<Cow<'a, str>>,
    /// A fragment of tool input JSON.
    #[serde(default, borrow)]
    pub tool_use: Option<ToolUseDelta<'a>>,
    /// Reasoning text or signature.
    #[serde(default, borrow)]
    pub reasoning_content: Option<ReasoningDelta<'a>>,
}

/// A tool input fragment.
#[derive(Debug, Clone, Deserialize)]
pub struct ToolUseDelta<'a> {
    /// The JSON text.
    #[serde(default, borrow)]
    pub input: Option<Cow<'a, str>>,
}

/// A reasoning delta.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningDelta<'a> {
    /// Reasoning text.
    #[serde(default, borrow)]
    pub text: Option<Cow<'a, str>>,
    /// A signature fragment.
    #[serde(default, borrow)]
    pub signature: Option<Cow<'a, str>>,
    /// Redacted reasoning (base64), ignored as pi does.
    #[serde(default)]
    pub redacted_content: Option<serde::de::IgnoredAny>,
}

/// `contentBlockStop`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentBlockStop {
    /// The block's index in Bedrock's numbering.
    #[serde(default)]
    pub content_block_index: Option<u64>,
}

/// `messageStop`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageStop {
    /// Why the model stopped.
    #[serde(default)]
    pub stop_reason: Option<String>,
}

/// `metadata`.
#[derive(Debug, Clone, Deserialize)]
pub struct Metadata {
    /// Token counts.
    #[serde(default)]
    pub usage: Option<TokenUsage>,
}

/// Token counts of a call.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    /// Input tokens.
    #[serde(default)]
    pub input_tokens: Option<u64>,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: Option<u64>,
    /// Total tokens.
    #[serde(default)]
    pub total_tokens: Option<u64>,
    /// Tokens read from the prompt cache.
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
    /// Tokens written to the prompt cache.
    #[serde(default)]
    pub cache_write_input_tokens: Option<u64>,
}

/// The payload of an exception message or of an error answer.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ErrorBody {
    /// The message (`message`).
    #[serde(default)]
    pub message: Option<String>,
    /// The message (`Message`, older services).
    #[serde(default, rename = "Message")]
    pub message_upper: Option<String>,
}

impl ErrorBody {
    /// `message`, else `Message`.
    pub fn text(&self) -> Option<&str> {
        self.message.as_deref().or(self.message_upper.as_deref())
    }
}
