//! Typed JSON of the OpenAI Responses API: the request body pi sends to
//! `POST {baseUrl}/responses` and the stream events it reads back.
//!
//! Field order follows the order pi's objects are built in, so an encoded
//! body reads the same as a captured one. Optional fields are omitted when
//! absent, as `JSON.stringify` drops `undefined`. The request's texts borrow
//! from the context where they go out unchanged, so a long transcript is not
//! copied into the request before it is encoded.

use std::borrow::Cow;

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

/// The body of `POST /responses`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestBody<'a> {
    /// Model id.
    pub model: String,
    /// The conversation as input items.
    pub input: Vec<InputItem<'a>>,
    /// Always true: pi streams.
    pub stream: bool,
    /// Prompt-cache key (pi's session id), unless caching is off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<String>,
    /// `"24h"` for long cache retention.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache_retention: Option<String>,
    /// Server-side persistence; pi sends `false`.
    pub store: bool,
    /// Output token limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    /// Sampling temperature.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_js_number"
    )]
    pub temperature: Option<f64>,
    /// Service tier (`auto`, `default`, `flex`, `priority`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<String>,
    /// Function tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<FunctionTool>>,
    /// Reasoning effort and summary mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
    /// Extra output to include: `reasoning.encrypted_content` when reasoning.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include: Option<Vec<String>>,
}

/// Writes an `f64` as JavaScript does: integral values without a fraction.
pub fn serialize_js_number<S: Serializer>(
    value: &Option<f64>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) => match js_integral(*v) {
            Some(i) => serializer.serialize_i64(i),
            None => serializer.serialize_f64(*v),
        },
        None => serializer.serialize_none(),
    }
}

/// The integer JavaScript would print for `v`, when `v` is integral and exact.
pub fn js_integral(v: f64) -> Option<i64> {
    /// 2^53: the largest integer an `f64` holds exactly.
    const MAX_SAFE: f64 = 9_007_199_254_740_992.0;
    // The guard makes the cast exact.
    (v.fract() == 0.0 && v.abs() <= MAX_SAFE).then_some(v as i64)
}

/// One item of `input`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum InputItem<'a> {
    /// A `role`-tagged message without a `type` (system, developer, user).
    Role(RoleMessage<'a>),
    /// A `type`-tagged item (assistant message, function call, function output).
    Typed(TypedItem<'a>),
    /// A reasoning item replayed verbatim from a thinking signature.
    Raw(Value),
}

/// `{role, content}` messages.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum RoleMessage<'a> {
    /// The system prompt for models without reasoning.
    System {
        /// Prompt text.
        content: Cow<'a, str>,
    },
    /// The system prompt for reasoning models.
    Developer {
        /// Prompt text.
        content: Cow<'a, str>,
    },
    /// What the user said.
    User {
        /// Text and image parts.
        content: Vec<InputContent<'a>>,
    },
}

/// A part of user content or of a function output.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputContent<'a> {
    /// `{type:"input_text", text}`.
    InputText {
        /// The text.
        text: Cow<'a, str>,
    },
    /// `{type:"input_image", detail:"auto", image_url:"data:..."}`.
    InputImage {
        /// Always `auto`.
        detail: &'static str,
        /// A `data:` URL with the base64 image.
        image_url: String,
    },
}

/// Items with a `type` discriminant.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TypedItem<'a> {
    /// An earlier assistant message.
    Message {
        /// Always `assistant`.
        role: &'static str,
        /// One `output_text` part.
        content: Vec<OutputText<'a>>,
        /// Always `completed`.
        status: &'static str,
        /// Message id (from the text signature, or `msg_<index>`).
        id: String,
        /// `commentary` or `final_answer`, when the signature carried one.
        #[serde(skip_serializing_if = "Option::is_none")]
        phase: Option<String>,
    },
    /// An earlier tool call.
    FunctionCall {
        /// Item id (`fc_...`); omitted when it cannot be replayed.
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<Cow<'a, str>>,
        /// Call id, matched by the output.
        call_id: Cow<'a, str>,
        /// Tool name.
        name: Cow<'a, str>,
        /// Arguments as a JSON string.
        arguments: String,
    },
    /// The result of a tool call.
    FunctionCallOutput {
        /// Call id of the answered call.
        call_id: Cow<'a, str>,
        /// Text, or parts when images are attached.
        output: FunctionOutput<'a>,
    },
}

/// `{type:"output_text", text, annotations:[]}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename = "output_text")]
pub struct OutputText<'a> {
    /// The text.
    pub text: Cow<'a, str>,
    /// Always empty.
    pub annotations: Vec<Value>,
}

/// A function output: a string, or parts when images are attached.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FunctionOutput<'a> {
    /// Plain text.
    Text(Cow<'a, str>),
    /// Text and image parts.
    Parts(Vec<InputContent<'a>>),
}

impl InputItem<'_> {
    /// The same item owning its texts.
    pub fn into_owned(self) -> InputItem<'static> {
        match self {
            Self::Role(RoleMessage::System { content }) => InputItem::Role(RoleMessage::System {
                content: owned(content),
            }),
            Self::Role(RoleMessage::Developer { content }) => {
                InputItem::Role(RoleMessage::Developer {
                    content: owned(content),
                })
            }
            Self::Role(RoleMessage::User { content }) => InputItem::Role(RoleMessage::User {
                content: content.into_iter().map(InputContent::into_owned).collect(),
            }),
            Self::Typed(TypedItem::Message {
                role,
                content,
                status,
                id,
                phase,
            }) => InputItem::Typed(TypedItem::Message {
                role,
                content: content
                    .into_iter()
                    .map(|part| OutputText {
                        text: owned(part.text),
                        annotations: part.annotations,
                    })
                    .collect(),
                status,
                id,
                phase,
            }),
            Self::Typed(TypedItem::FunctionCall {
                id,
                call_id,
                name,
                arguments,
            }) => InputItem::Typed(TypedItem::FunctionCall {
                id: id.map(owned),
                call_id: owned(call_id),
                name: owned(name),
                arguments,
            }),
            Self::Typed(TypedItem::FunctionCallOutput { call_id, output }) => {
                InputItem::Typed(TypedItem::FunctionCallOutput {
                    call_id: owned(call_id),
                    output: match output {
                        FunctionOutput::Text(text) => FunctionOutput::Text(owned(text)),
                        FunctionOutput::Parts(parts) => FunctionOutput::Parts(
                            parts.into_iter().map(InputContent::into_owned).collect(),
                        ),
                    },
                })
            }
            Self::Raw(value) => InputItem::Raw(value),
        }
    }
}

impl InputContent<'_> {
    /// The same part owning its text.
    pub fn into_owned(self) -> InputContent<'static> {
        match self {
            Self::InputText { text } => InputContent::InputText { text: owned(text) },
            Self::InputImage { detail, image_url } => {
                InputContent::InputImage { detail, image_url }
            }
        }
    }
}

/// A text owned, so it outlives what it was borrowed from.
fn owned(text: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(text.into_owned())
}

/// `{type:"function", name, description, parameters, strict}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename = "function")]
pub struct FunctionTool {
    /// Tool name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters: Value,
    /// pi sends `false`.
    pub strict: bool,
}

/// `{effort, summary?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reasoning {
    /// Effort (`minimal` .. `xhigh`, `none`, or a model-specific value).
    pub effort: String,
    /// Summary mode (`auto`, `concise`, `detailed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

/// `{v:1, id, phase?}`: what pi stores in a text block's `textSignature`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextSignatureV1 {
    /// Format version, always 1.
    pub v: u8,
    /// The message item id.
    pub id: String,
    /// `commentary` or `final_answer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
}

/// One stream event, by its `type`. Events pi ignores parse as [`StreamEvent::Other`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type")]
pub enum StreamEvent {
    /// The response was created; carries its id.
    #[serde(rename = "response.created")]
    Created {
        /// The response so far.
        response: ResponseObject,
    },
    /// An output item (reasoning, message, function call) started.
    #[serde(rename = "response.output_item.added")]
    OutputItemAdded {
        /// The item as announced.
        item: AddedItem,
    },
    /// A reasoning summary part started.
    #[serde(rename = "response.reasoning_summary_part.added")]
    ReasoningSummaryPartAdded {},
    /// Reasoning summary text.
    #[serde(rename = "response.reasoning_summary_text.delta")]
    ReasoningSummaryTextDelta {
        /// The appended text.
        delta: String,
    },
    /// A reasoning summary part ended.
    #[serde(rename = "response.reasoning_summary_part.done")]
    ReasoningSummaryPartDone {},
    /// Raw reasoning text (servers that stream it, e.g. LM Studio).
    #[serde(rename = "response.reasoning_text.delta")]
    ReasoningTextDelta {
        /// The appended text.
        delta: String,
    },
    /// A content part of a message started.
    #[serde(rename = "response.content_part.added")]
    ContentPartAdded {
        /// The part.
        part: ContentPart,
    },
    /// Message text.
    #[serde(rename = "response.output_text.delta")]
    OutputTextDelta {
        /// The appended text.
        delta: String,
    },
    /// Refusal text.
    #[serde(rename = "response.refusal.delta")]
    RefusalDelta {
        /// The appended text.
        delta: String,
    },
    /// A fragment of function call arguments.
    #[serde(rename = "response.function_call_arguments.delta")]
    FunctionCallArgumentsDelta {
        /// The JSON fragment.
        delta: String,
    },
    /// The complete function call arguments.
    #[serde(rename = "response.function_call_arguments.done")]
    FunctionCallArgumentsDone {
        /// The whole JSON text.
        arguments: String,
    },
    /// An output item is complete; kept as JSON because a reasoning item is
    /// stored whole as the thinking signature.
    #[serde(rename = "response.output_item.done")]
    OutputItemDone {
        /// The complete item.
        item: Value,
    },
    /// The response finished.
    #[serde(rename = "response.completed")]
    Completed {
        /// The final response.
        response: ResponseObject,
    },
    /// The response stopped early (output limit, content filter).
    #[serde(rename = "response.incomplete")]
    Incomplete {
        /// The final response.
        response: ResponseObject,
    },
    /// The response failed.
    #[serde(rename = "response.failed")]
    Failed {
        /// The final response with its error.
        response: ResponseObject,
    },
    /// A stream-level error.
    #[serde(rename = "error")]
    Error {
        /// Error code.
        #[serde(default)]
        code: Option<Value>,
        /// Error text.
        #[serde(default)]
        message: Option<String>,
        /// An error object, as some proxies send it.
        #[serde(default)]
        error: Option<Value>,
    },
    /// Any other event (in_progress, *.done of parts, ...), ignored.
    #[serde(other)]
    Other,
}

/// The output item of `response.output_item.added`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AddedItem {
    /// Reasoning.
    Reasoning {},
    /// An assistant message.
    Message {},
    /// A function call.
    FunctionCall {
        /// Item id (`fc_...`).
        #[serde(default)]
        id: Option<String>,
        /// Call id.
        #[serde(default)]
        call_id: String,
        /// Tool name.
        #[serde(default)]
        name: String,
        /// Arguments known so far (usually empty).
        #[serde(default)]
        arguments: Option<String>,
    },
    /// Other item types (web search, ...), ignored.
    #[serde(other)]
    Other,
}

/// The part of `response.content_part.added`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentPart {
    /// Visible text.
    OutputText,
    /// A refusal.
    Refusal,
    /// Reasoning text and anything else, ignored.
    #[serde(other)]
    Other,
}

/// A completed `message` item.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct DoneMessage {
    /// Item id.
    pub id: String,
    /// `commentary` / `final_answer`.
    #[serde(default)]
    pub phase: Option<String>,
    /// Its parts.
    #[serde(default)]
    pub content: Vec<DoneMessagePart>,
}

/// A part of a completed message.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DoneMessagePart {
    /// Visible text.
    OutputText {
        /// The text.
        #[serde(default)]
        text: String,
    },
    /// A refusal.
    Refusal {
        /// The refusal text.
        #[serde(default)]
        refusal: String,
    },
    /// Anything else (contributes no text).
    #[serde(other)]
    Other,
}

/// A completed `reasoning` item: its summary and raw text parts.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct DoneReasoning {
    /// Summary parts.
    #[serde(default)]
    pub summary: Option<Vec<TextPart>>,
    /// Raw reasoning text parts.
    #[serde(default)]
    pub content: Option<Vec<TextPart>>,
}

/// `{text}` of a reasoning part.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct TextPart {
    /// The text.
    #[serde(default)]
    pub text: String,
}

/// A completed `function_call` item.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct DoneFunctionCall {
    /// Item id.
    #[serde(default)]
    pub id: Option<String>,
    /// Call id.
    #[serde(default)]
    pub call_id: String,
    /// Tool name.
    #[serde(default)]
    pub name: String,
    /// The JSON arguments.
    #[serde(default)]
    pub arguments: Option<String>,
}

/// The `response` object of lifecycle events (only the fields pi reads).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct ResponseObject {
    /// Response id (`resp_...`).
    #[serde(default)]
    pub id: Option<String>,
    /// `completed`, `incomplete`, `failed`, `cancelled`, `in_progress`, `queued`.
    #[serde(default)]
    pub status: Option<String>,
    /// Token usage.
    #[serde(default)]
    pub usage: Option<ResponseUsage>,
    /// The tier that served the request.
    #[serde(default)]
    pub service_tier: Option<String>,
    /// Why it failed.
    #[serde(default)]
    pub error: Option<ResponseError>,
    /// Why it is incomplete.
    #[serde(default)]
    pub incomplete_details: Option<IncompleteDetails>,
}

/// `usage` of a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub struct ResponseUsage {
    /// Input tokens, cached ones included.
    #[serde(default)]
    pub input_tokens: Option<u64>,
    /// Output tokens, reasoning included.
    #[serde(default)]
    pub output_tokens: Option<u64>,
    /// Their sum.
    #[serde(default)]
    pub total_tokens: Option<u64>,
    /// Details of the input.
    #[serde(default)]
    pub input_tokens_details: Option<InputTokensDetails>,
}

/// `input_tokens_details`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
pub struct InputTokensDetails {
    /// Input tokens served from the prompt cache.
    #[serde(default)]
    pub cached_tokens: Option<u64>,
}

/// `error` of a failed response.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct ResponseError {
    /// Error code (a string in practice).
    #[serde(default)]
    pub code: Option<Value>,
    /// Error text.
    #[serde(default)]
    pub message: Option<String>,
}

/// `incomplete_details` of a response.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
pub struct IncompleteDetails {
    /// `max_output_tokens`, `content_filter`, ...
    #[serde(default)]
    pub reason: Option<String>,
}
