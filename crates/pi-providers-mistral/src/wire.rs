//! Typed Mistral chat JSON: the request body pi's Mistral SDK puts on the
//! wire (snake_case, `prefix: false` on assistant messages, `index: 0` on
//! tool calls, image URLs as plain strings) and the stream chunks it reads.
//! The request's texts borrow from the context where they go out unchanged,
//! so a long transcript is not copied into the request before it is encoded.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `POST /v1/chat/completions` body (streaming).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest<'a> {
    /// Model id.
    pub model: String,
    /// Sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Output token limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Always true: we only stream.
    pub stream: bool,
    /// The conversation, system prompt first.
    pub messages: Vec<ChatMessage<'a>>,
    /// Function tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ToolDefinition>>,
    /// Which tool the model must (or must not) call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// `reasoning` for reasoning models that think by prompt mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_mode: Option<String>,
    /// Effort for the models that take one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
}

/// One message of the request, tagged by `role`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum ChatMessage<'a> {
    /// The system prompt.
    System {
        /// Prompt text.
        content: Cow<'a, str>,
    },
    /// A user turn.
    User {
        /// Text, or text and image parts.
        content: UserContentWire<'a>,
    },
    /// A replayed assistant turn.
    Assistant {
        /// Text and thinking parts, when there are any.
        #[serde(skip_serializing_if = "Option::is_none")]
        content: Option<Vec<ContentPart<'a>>>,
        /// Tool calls, when there are any.
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_calls: Option<Vec<ToolCallWire<'a>>>,
        /// Always false (the SDK's default).
        prefix: bool,
    },
    /// A tool result.
    Tool {
        /// Text first, then images.
        content: Vec<ContentPart<'a>>,
        /// Id of the call it answers.
        tool_call_id: Cow<'a, str>,
        /// Tool name.
        name: Cow<'a, str>,
    },
}

/// A plain string or a list of parts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum UserContentWire<'a> {
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
    },
    /// An image as a data URL string.
    ImageUrl {
        /// `data:<mime>;base64,<data>`.
        image_url: String,
    },
    /// Replayed thinking.
    Thinking {
        /// Its text parts.
        thinking: Vec<ThinkingPart<'a>>,
    },
}

/// A text part inside a thinking part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ThinkingPart<'a> {
    /// Always `text`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The thinking text.
    pub text: Cow<'a, str>,
}

/// A replayed tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolCallWire<'a> {
    /// Call id (9 alphanumerics).
    pub id: Cow<'a, str>,
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Name and JSON-encoded arguments.
    pub function: FunctionCallWire<'a>,
    /// Always 0 (the SDK's default).
    pub index: u64,
}

/// `function` of a tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FunctionCallWire<'a> {
    /// Tool name.
    pub name: Cow<'a, str>,
    /// Arguments as a JSON string.
    pub arguments: String,
}

impl ChatMessage<'_> {
    /// The same message owning its texts.
    pub fn into_owned(self) -> ChatMessage<'static> {
        match self {
            Self::System { content } => ChatMessage::System {
                content: owned(content),
            },
            Self::User { content } => ChatMessage::User {
                content: match content {
                    UserContentWire::Text(text) => UserContentWire::Text(owned(text)),
                    UserContentWire::Parts(parts) => UserContentWire::Parts(owned_parts(parts)),
                },
            },
            Self::Assistant {
                content,
                tool_calls,
                prefix,
            } => ChatMessage::Assistant {
                content: content.map(owned_parts),
                tool_calls: tool_calls.map(|calls| {
                    calls
                        .into_iter()
                        .map(|call| ToolCallWire {
                            id: owned(call.id),
                            kind: call.kind,
                            function: FunctionCallWire {
                                name: owned(call.function.name),
                                arguments: call.function.arguments,
                            },
                            index: call.index,
                        })
                        .collect()
                }),
                prefix,
            },
            Self::Tool {
                content,
                tool_call_id,
                name,
            } => ChatMessage::Tool {
                content: owned_parts(content),
                tool_call_id: owned(tool_call_id),
                name: owned(name),
            },
        }
    }
}

/// Parts owning their texts.
fn owned_parts(parts: Vec<ContentPart<'_>>) -> Vec<ContentPart<'static>> {
    parts
        .into_iter()
        .map(|part| match part {
            ContentPart::Text { text } => ContentPart::Text { text: owned(text) },
            ContentPart::ImageUrl { image_url } => ContentPart::ImageUrl { image_url },
            ContentPart::Thinking { thinking } => ContentPart::Thinking {
                thinking: thinking
                    .into_iter()
                    .map(|part| ThinkingPart {
                        kind: part.kind,
                        text: owned(part.text),
                    })
                    .collect(),
            },
        })
        .collect()
}

/// A text owned, so it outlives what it was borrowed from.
fn owned(text: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(text.into_owned())
}

/// A function tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDefinition {
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The function.
    pub function: FunctionDefinition,
}

/// `function` of a tool definition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionDefinition {
    /// Tool name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Always false.
    pub strict: bool,
    /// JSON Schema of the arguments.
    pub parameters: Value,
}

/// `tool_choice`: `"auto"`, `"none"`, `"any"`, `"required"` or one function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// No tool calls.
    None,
    /// Some tool call.
    Any,
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
            Self::Any => serializer.serialize_str("any"),
            Self::Required => serializer.serialize_str("required"),
            Self::Function(name) => Named {
                kind: "function",
                function: NamedFunction { name },
            }
            .serialize(serializer),
        }
    }
}

// ---------------------------------------------------------------------------
// Stream chunks.

mod chunk_de;

/// One `data:` chunk of the stream.
#[derive(Debug, Deserialize)]
pub struct CompletionChunk<'a> {
    /// Completion id (the same on every chunk).
    #[serde(default, borrow, deserialize_with = "chunk_de::optional_str")]
    pub id: Option<Cow<'a, str>>,
    /// Token usage (the last chunk).
    #[serde(default)]
    pub usage: Option<ChunkUsage>,
    /// The first of `choices`, the only one read (the others must still
    /// be valid choices); `None` for an empty list.
    #[serde(rename = "choices", borrow, deserialize_with = "chunk_de::first_of")]
    pub first_choice: Option<ChunkChoice<'a>>,
}

/// A choice of a chunk.
#[derive(Debug, Deserialize)]
pub struct ChunkChoice<'a> {
    /// What was added.
    #[serde(default, borrow)]
    pub delta: ChunkDelta<'a>,
    /// Why generation stopped, on the last chunk.
    #[serde(default, borrow, deserialize_with = "chunk_de::optional_str")]
    pub finish_reason: Option<Cow<'a, str>>,
}

/// The delta of a choice.
#[derive(Debug, Default, Deserialize)]
pub struct ChunkDelta<'a> {
    /// A string, or text and thinking parts.
    #[serde(default, borrow)]
    pub content: Option<DeltaContent<'a>>,
    /// Tool calls (whole, or in pieces).
    #[serde(default, borrow)]
    pub tool_calls: Option<Vec<ToolCallDelta<'a>>>,
}

/// `delta.content`: a string (borrowed from the frame when it has no
/// escapes) or a list of parts.
#[derive(Debug)]
pub enum DeltaContent<'a> {
    /// Plain text.
    Text(Cow<'a, str>),
    /// Parts.
    Parts(Vec<DeltaPart>),
}

impl<'de: 'a, 'a> Deserialize<'de> for DeltaContent<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor;

        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = DeltaContent<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a list of content parts")
            }

            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(DeltaContent::Text(Cow::Borrowed(v)))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(DeltaContent::Text(Cow::Owned(v.to_owned())))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(DeltaContent::Text(Cow::Owned(v)))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Vec::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(DeltaContent::Parts)
            }
        }

        deserializer.deserialize_any(ContentVisitor)
    }
}

/// A part of `delta.content`.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DeltaPart {
    /// Visible text.
    Text {
        /// The text.
        #[serde(default)]
        text: String,
    },
    /// Reasoning.
    Thinking {
        /// Its parts; those with `text` count.
        #[serde(default)]
        thinking: Vec<Value>,
    },
    /// Anything else (references, images, ...): ignored.
    #[serde(other)]
    Other,
}

/// A tool call in a delta.
#[derive(Debug, Deserialize)]
pub struct ToolCallDelta<'a> {
    /// Call id (`"null"` or absent on continuation pieces).
    #[serde(default, borrow, deserialize_with = "chunk_de::optional_str")]
    pub id: Option<Cow<'a, str>>,
    /// Position of the call.
    #[serde(default)]
    pub index: Option<u64>,
    /// Name and arguments.
    pub function: FunctionDelta<'a>,
}

/// `function` of a tool-call delta.
#[derive(Debug, Deserialize)]
pub struct FunctionDelta<'a> {
    /// Tool name.
    #[serde(default, borrow)]
    pub name: Cow<'a, str>,
    /// Arguments: a JSON string piece, or an object.
    #[serde(default, borrow)]
    pub arguments: Arguments<'a>,
}

/// `function.arguments`: a piece of JSON text (borrowed when possible) or
/// an already parsed value.
#[derive(Debug, Default)]
pub enum Arguments<'a> {
    /// Absent or `null`.
    #[default]
    Missing,
    /// JSON text.
    Text(Cow<'a, str>),
    /// A JSON value (object, number, ...).
    Value(Value),
}

impl<'de: 'a, 'a> Deserialize<'de> for Arguments<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ArgumentsVisitor;

        impl<'de> Visitor<'de> for ArgumentsVisitor {
            type Value = Arguments<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("JSON text or a JSON value")
            }

            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Arguments::Text(Cow::Borrowed(v)))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Arguments::Text(Cow::Owned(v.to_owned())))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Arguments::Text(Cow::Owned(v)))
            }

            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Arguments::Missing)
            }

            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Arguments::Missing)
            }

            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(Arguments::Value(Value::Bool(v)))
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Arguments::Value(Value::from(v)))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Arguments::Value(Value::from(v)))
            }

            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(Arguments::Value(Value::from(v)))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Value::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Arguments::Value)
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Value::deserialize(de::value::MapAccessDeserializer::new(map)).map(Arguments::Value)
            }
        }

        deserializer.deserialize_any(ArgumentsVisitor)
    }
}

/// `usage`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct ChunkUsage {
    /// Input tokens.
    #[serde(default)]
    pub prompt_tokens: Option<u64>,
    /// Output tokens.
    #[serde(default)]
    pub completion_tokens: Option<u64>,
    /// Both.
    #[serde(default)]
    pub total_tokens: Option<u64>,
}
