//! Content blocks: `text`, `thinking`, `image` and `toolCall`.

use serde::de::{self, MapAccess};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::ExtraFields;
use crate::fast_de::{self, TaggedMap};

/// `{type:"text", text, textSignature?}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextContent {
    /// The text.
    #[serde(default)]
    pub text: String,
    /// Opaque provider signature (e.g. an OpenAI Responses message id), replayed byte for byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_signature: Option<String>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `{type:"thinking", thinking, thinkingSignature?, redacted?}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingContent {
    /// The reasoning text (a placeholder when redacted).
    #[serde(default)]
    pub thinking: String,
    /// Opaque provider signature or encrypted reasoning, replayed byte for byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_signature: Option<String>,
    /// True when the provider redacted the reasoning; the signature then holds the payload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<bool>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `{type:"image", data, mimeType}` with base64 data.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64-encoded image bytes.
    pub data: String,
    /// MIME type such as `image/png`.
    pub mime_type: String,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// `{type:"toolCall", id, name, arguments, thoughtSignature?, namespace?}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// Provider-assigned call id; the matching tool result carries it.
    #[serde(default)]
    pub id: String,
    /// Tool name.
    #[serde(default)]
    pub name: String,
    /// Parsed arguments (a JSON object in practice; `null` when missing,
    /// and then written back absent).
    #[serde(
        default,
        deserialize_with = "crate::exact::exact_value",
        skip_serializing_if = "Value::is_null"
    )]
    pub arguments: Value,
    /// Opaque signature (Google thought signature, OpenRouter reasoning details).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
    /// Tool namespace for deferred-loaded tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Fields this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: ExtraFields,
}

/// A block of user or tool-result content: `text` or `image`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum UserBlock {
    /// Text.
    Text(TextContent),
    /// Image.
    Image(ImageContent),
}

/// A block of assistant content: `text`, `thinking` or `toolCall`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum AssistantContent {
    /// Visible text.
    Text(TextContent),
    /// Reasoning.
    Thinking(ThinkingContent),
    /// A call of a tool.
    ToolCall(ToolCall),
}

impl TaggedMap for UserBlock {
    const TAG: &'static str = "type";
    const EXPECTING: &'static str = "a text or image block";

    fn from_tag<'de, A: MapAccess<'de>>(kind: &str, rest: A) -> Result<Self, A::Error> {
        match kind {
            "text" => fast_de::from_rest(rest).map(Self::Text),
            "image" => fast_de::from_rest(rest).map(Self::Image),
            other => Err(de::Error::unknown_variant(other, &["text", "image"])),
        }
    }
}

impl<'de> Deserialize<'de> for UserBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        fast_de::deserialize_tagged(deserializer)
    }
}

impl TaggedMap for AssistantContent {
    const TAG: &'static str = "type";
    const EXPECTING: &'static str = "a text, thinking or toolCall block";

    fn from_tag<'de, A: MapAccess<'de>>(kind: &str, rest: A) -> Result<Self, A::Error> {
        match kind {
            "text" => fast_de::from_rest(rest).map(Self::Text),
            "thinking" => fast_de::from_rest(rest).map(Self::Thinking),
            "toolCall" => fast_de::from_rest(rest).map(Self::ToolCall),
            other => Err(de::Error::unknown_variant(
                other,
                &["text", "thinking", "toolCall"],
            )),
        }
    }
}

impl<'de> Deserialize<'de> for AssistantContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        fast_de::deserialize_tagged(deserializer)
    }
}

impl TextContent {
    /// A text block with no signature.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }
}

impl UserBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent::new(text))
    }

    /// An image block from base64 data and a MIME type.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Image(ImageContent {
            data: data.into(),
            mime_type: mime_type.into(),
            extra: ExtraFields::new(),
        })
    }

    /// The text of a text block, `None` for an image.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(&t.text),
            Self::Image(_) => None,
        }
    }
}

impl AssistantContent {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent::new(text))
    }
}
