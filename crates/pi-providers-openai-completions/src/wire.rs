//! Typed Chat Completions JSON: the request body we send and the stream
//! chunks we read. Field names are the wire's (snake_case); optional request
//! fields are omitted when unset, as pi's `JSON.stringify` drops `undefined`.
//! The request's texts borrow from the context where they go out unchanged,
//! so a long transcript is not copied into the request before it is encoded.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::compat::ProviderRouting;
use crate::messages::ChatMessages;

/// `POST /chat/completions` body (streaming).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatCompletionRequest<'a> {
    /// Model id.
    pub model: String,
    /// The conversation, converted as it is written.
    pub messages: ChatMessages<'a>,
    /// Always true: we only stream.
    pub stream: bool,
    /// Prompt-cache key (the session id) for OpenAI prompt caching.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<String>,
    /// `"24h"` for long cache retention.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache_retention: Option<String>,
    /// `{include_usage: true}` so the last chunk carries usage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptionsWire>,
    /// `false`: do not keep the completion server-side.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<bool>,
    /// Output token limit (current name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<u64>,
    /// Output token limit (legacy name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Function tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ToolDefinition>>,
    /// z.ai tool-call streaming.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_stream: Option<bool>,
    /// Which tool the model must (or must not) call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// z.ai / Qwen thinking switch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_thinking: Option<bool>,
    /// Qwen chat-template thinking switch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_template_kwargs: Option<ChatTemplateKwargs>,
    /// DeepSeek thinking switch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<ThinkingSwitch>,
    /// OpenRouter reasoning object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningObject>,
    /// OpenAI reasoning effort.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
    /// OpenRouter provider routing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<ProviderRouting>,
    /// Vercel AI Gateway options.
    #[serde(rename = "providerOptions", skip_serializing_if = "Option::is_none")]
    pub provider_options: Option<GatewayOptions>,
}

/// `stream_options`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StreamOptionsWire {
    /// Ask for a final usage chunk.
    pub include_usage: bool,
}

/// One message of the request, tagged by `role`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum ChatMessage<'a> {
    /// The system prompt.
    System {
        /// Prompt text (parts only when a cache marker is attached).
        content: TextOrParts<'a>,
    },
    /// The system prompt of reasoning models.
    Developer {
        /// Prompt text (parts only when a cache marker is attached).
        content: TextOrParts<'a>,
    },
    /// A user turn.
    User {
        /// Text, or text and image parts.
        content: TextOrParts<'a>,
    },
    /// A replayed assistant turn.
    Assistant(AssistantMessageWire<'a>),
    /// A tool result.
    Tool {
        /// The result text.
        content: Cow<'a, str>,
        /// Id of the call it answers.
        tool_call_id: Cow<'a, str>,
        /// Tool name, for servers that require it.
        #[serde(skip_serializing_if = "Option::is_none")]
        name: Option<Cow<'a, str>>,
    },
}

/// A plain string or a list of content parts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TextOrParts<'a> {
    /// A plain string.
    Text(Cow<'a, str>),
    /// Content parts.
    Parts(Vec<ContentPart<'a>>),
}

/// A content part.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart<'a> {
    /// Text.
    Text {
        /// The text.
        text: Cow<'a, str>,
        /// Prompt-cache marker.
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// An image as a data URL.
    ImageUrl {
        /// `{url}`.
        image_url: ImageUrl,
    },
}

/// `image_url` of an image part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImageUrl {
    /// `data:<mime>;base64,<data>`.
    pub url: String,
}

/// `{type: "ephemeral", ttl?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CacheControl {
    /// Always `ephemeral`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `1h` for long retention.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl: Option<&'static str>,
}

/// An assistant message: content (`null` when it has only tool calls),
/// tool calls and replayed reasoning.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AssistantMessageWire<'a> {
    /// Joined text, text parts, or `null`.
    pub content: Option<TextOrParts<'a>>,
    /// Reasoning replayed under the field it was streamed in
    /// (`reasoning_content`, `reasoning`, `reasoning_text`).
    #[serde(flatten)]
    pub reasoning_fields: serde_json::Map<String, Value>,
    /// Tool calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCallWire<'a>>>,
    /// OpenRouter encrypted reasoning details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_details: Option<Vec<Value>>,
}

/// A replayed tool call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCallWire<'a> {
    /// Call id.
    pub id: Cow<'a, str>,
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Name and JSON-encoded arguments.
    pub function: FunctionCallWire<'a>,
}

/// `function` of a tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FunctionCallWire<'a> {
    /// Tool name.
    pub name: Cow<'a, str>,
    /// Arguments as a JSON string.
    pub arguments: String,
}

/// A function tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDefinition {
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The function.
    pub function: FunctionDefinition,
    /// Prompt-cache marker on the last tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

impl ChatMessage<'_> {
    /// The same message owning its texts.
    pub fn into_owned(self) -> ChatMessage<'static> {
        match self {
            Self::System { content } => ChatMessage::System {
                content: content.into_owned(),
            },
            Self::Developer { content } => ChatMessage::Developer {
                content: content.into_owned(),
            },
            Self::User { content } => ChatMessage::User {
                content: content.into_owned(),
            },
            Self::Assistant(message) => ChatMessage::Assistant(AssistantMessageWire {
                content: message.content.map(TextOrParts::into_owned),
                reasoning_fields: message.reasoning_fields,
                tool_calls: message.tool_calls.map(|calls| {
                    calls
                        .into_iter()
                        .map(|call| ToolCallWire {
                            id: owned(call.id),
                            kind: call.kind,
                            function: FunctionCallWire {
                                name: owned(call.function.name),
                                arguments: call.function.arguments,
                            },
                        })
                        .collect()
                }),
                reasoning_details: message.reasoning_details,
            }),
            Self::Tool {
                content,
                tool_call_id,
                name,
            } => ChatMessage::Tool {
                content: owned(content),
                tool_call_id: owned(tool_call_id),
                name: name.map(owned),
            },
        }
    }
}

impl TextOrParts<'_> {
    /// The same content owning its texts.
    pub fn into_owned(self) -> TextOrParts<'static> {
        match self {
            Self::Text(text) => TextOrParts::Text(owned(text)),
            Self::Parts(parts) => TextOrParts::Parts(
                parts
                    .into_iter()
                    .map(|part| match part {
                        ContentPart::Text {
                            text,
                            cache_control,
                        } => ContentPart::Text {
                            text: owned(text),
                            cache_control,
                        },
                        ContentPart::ImageUrl { image_url } => ContentPart::ImageUrl { image_url },
                    })
                    .collect(),
            ),
        }
    }
}

fn owned(text: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(text.into_owned())
}

/// `function` of a tool definition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionDefinition {
    /// Tool name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters: Value,
    /// `false` where the server accepts the field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

/// `tool_choice`: `"auto"`, `"none"`, `"required"` or one named function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// No tool calls.
    None,
    /// At least one tool call.
    Required,
    /// Exactly this function.
    Function(String),
}

impl Serialize for ToolChoice {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Named<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            function: NamedFunction<'a>,
        }
        #[derive(Serialize)]
        struct NamedFunction<'a> {
            name: &'a str,
        }
        match self {
            Self::Auto => serializer.serialize_str("auto"),
            Self::None => serializer.serialize_str("none"),
            Self::Required => serializer.serialize_str("required"),
            Self::Function(name) => Named {
                kind: "function",
                function: NamedFunction { name },
            }
            .serialize(serializer),
        }
    }
}

/// `chat_template_kwargs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ChatTemplateKwargs {
    /// Thinking on or off.
    pub enable_thinking: bool,
    /// Keep earlier turns' thinking in the template.
    pub preserve_thinking: bool,
}

/// DeepSeek `thinking: {type}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ThinkingSwitch {
    /// `enabled` or `disabled`.
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// OpenRouter `reasoning: {effort}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReasoningObject {
    /// Effort level.
    pub effort: String,
}

/// Vercel AI Gateway `providerOptions`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GatewayOptions {
    /// `{only?, order?}`.
    pub gateway: ProviderRouting,
}

// ---------------------------------------------------------------------------
// Stream chunks. Every field is optional and read leniently: a value of an
// unexpected type counts as absent (servers differ), and strings borrow from
// the frame when they contain no escapes.

/// One `data:` chunk of the stream.
#[derive(Debug, Default, Deserialize)]
pub struct ChatCompletionChunk<'a> {
    /// Completion id (the same on every chunk).
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub id: Option<Cow<'a, str>>,
    /// Model that served the request.
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub model: Option<Cow<'a, str>>,
    /// Choices; only the first is read.
    #[serde(default, borrow)]
    pub choices: Option<Vec<ChunkChoice<'a>>>,
    /// Token usage (the last chunk when `include_usage` is set).
    #[serde(default)]
    pub usage: Option<Box<ChunkUsage>>,
    /// An error reported inside the stream.
    #[serde(default)]
    pub error: Option<Value>,
}

/// A choice of a chunk.
#[derive(Debug, Default, Deserialize)]
pub struct ChunkChoice<'a> {
    /// What was added.
    #[serde(default, borrow)]
    pub delta: Option<ChunkDelta<'a>>,
    /// Why generation stopped, on the last content chunk.
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub finish_reason: Option<Cow<'a, str>>,
    /// Usage placed on the choice (Moonshot).
    #[serde(default)]
    pub usage: Option<Box<ChunkUsage>>,
}

/// The delta of a choice.
#[derive(Debug, Default, Deserialize)]
pub struct ChunkDelta<'a> {
    /// Visible text.
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub content: Option<Cow<'a, str>>,
    /// Reasoning (llama.cpp, DeepSeek, vLLM).
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub reasoning_content: Option<Cow<'a, str>>,
    /// Reasoning (OpenRouter, Ollama, others).
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub reasoning: Option<Cow<'a, str>>,
    /// Reasoning (some gateways).
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub reasoning_text: Option<Cow<'a, str>>,
    /// Tool-call fragments.
    #[serde(default, borrow)]
    pub tool_calls: Option<Vec<ToolCallDelta<'a>>>,
    /// OpenRouter reasoning details (encrypted reasoning tied to tool calls).
    #[serde(default)]
    pub reasoning_details: Option<Vec<Value>>,
}

/// A tool-call fragment: id and name arrive once, arguments in pieces.
#[derive(Debug, Default, Deserialize)]
pub struct ToolCallDelta<'a> {
    /// Position of the call in the message (stable across fragments).
    #[serde(default, deserialize_with = "lenient_u64")]
    pub index: Option<u64>,
    /// Call id.
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub id: Option<Cow<'a, str>>,
    /// Name and argument fragment.
    #[serde(default, borrow)]
    pub function: Option<FunctionDelta<'a>>,
}

/// `function` of a tool-call fragment.
#[derive(Debug, Default, Deserialize)]
pub struct FunctionDelta<'a> {
    /// Tool name.
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub name: Option<Cow<'a, str>>,
    /// A piece of the JSON arguments.
    #[serde(default, borrow, deserialize_with = "lenient_str")]
    pub arguments: Option<Cow<'a, str>>,
}

/// `usage`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct ChunkUsage {
    /// Input tokens, cached ones included.
    #[serde(default, deserialize_with = "lenient_u64")]
    pub prompt_tokens: Option<u64>,
    /// Output tokens, reasoning included.
    #[serde(default, deserialize_with = "lenient_u64")]
    pub completion_tokens: Option<u64>,
    /// DeepSeek's cache hits.
    #[serde(default, deserialize_with = "lenient_u64")]
    pub prompt_cache_hit_tokens: Option<u64>,
    /// Breakdown of the input.
    #[serde(default)]
    pub prompt_tokens_details: Option<PromptTokensDetails>,
    /// Breakdown of the output.
    #[serde(default)]
    pub completion_tokens_details: Option<CompletionTokensDetails>,
}

/// `usage.prompt_tokens_details`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct PromptTokensDetails {
    /// Input tokens read from the prompt cache.
    #[serde(default, deserialize_with = "lenient_u64")]
    pub cached_tokens: Option<u64>,
    /// Input tokens written to the prompt cache (OpenRouter).
    #[serde(default, deserialize_with = "lenient_u64")]
    pub cache_write_tokens: Option<u64>,
}

/// `usage.completion_tokens_details`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct CompletionTokensDetails {
    /// Reasoning tokens (already counted in `completion_tokens`).
    #[serde(default, deserialize_with = "lenient_u64")]
    pub reasoning_tokens: Option<u64>,
}

/// A string field that may hold anything: a string is kept (borrowed when
/// possible), any other value reads as `None`.
pub(crate) fn lenient_str<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Cow<'de, str>>, D::Error> {
    deserializer.deserialize_any(LenientStr)
}

struct LenientStr;

impl<'de> Visitor<'de> for LenientStr {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v)))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// A token count that may be missing, `null`, fractional or of another type;
/// only a non-negative number counts (fractions are truncated).
pub(crate) fn lenient_u64<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u64>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && *f >= 0.0)
                // Token counts are far below 2^53: the conversion is exact after truncation.
                .map(|f| f.trunc() as u64)
        }),
        _ => None,
    })
}
