//! Typed structures of the Gemini API (`generativelanguage.googleapis.com`,
//! `v1beta`): the `streamGenerateContent` request body and the
//! `GenerateContentResponse` chunks of its SSE stream.
//!
//! Field order follows the JSON that pi's Google SDK writes, so encoded
//! bodies read like pi's captured ones. A request's parts ([`RequestPart`])
//! borrow their texts from the context where they go out unchanged, so a
//! long transcript is not copied into the request before it is encoded; the
//! stream's parts own theirs (the type parameters' defaults).

use std::borrow::Cow;

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

/// The body of `POST models/{model}:streamGenerateContent?alt=sse`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerateContentRequest<'a> {
    /// The conversation, alternating `user` and `model` turns.
    pub contents: Vec<Content<'a>>,
    /// The system prompt as a `user` content with one text part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<Content<'a>>,
    /// Function declarations the model may call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ToolDeclarations>>,
    /// How the model may call functions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_config: Option<ToolConfig>,
    /// Sampling, output limit and thinking; always present (possibly empty), as the SDK writes it.
    #[serde(default)]
    pub generation_config: GenerationConfig,
}

/// Who produced a content turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user (and tool results).
    User,
    /// The model.
    Model,
}

/// One turn: `{parts, role}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Content<'a> {
    /// The parts of the turn, in order.
    pub parts: Vec<RequestPart<'a>>,
    /// Who produced it.
    pub role: Role,
}

/// A part of a request: texts and arguments borrowed from the context.
pub type RequestPart<'a> = Part<Cow<'a, str>, Cow<'a, Value>>;

/// One part of a turn. Gemini's `Part` is a union (text, inline data,
/// function call, function response) plus metadata (`thought`,
/// `thoughtSignature`) that may sit on any kind, so it is a struct of options.
/// `S` holds its texts and `V` a call's arguments.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Part<S = String, V = Value> {
    /// A call of a function, from the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_call: Option<FunctionCall<S, V>>,
    /// The result of a function call, from the user side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_response: Option<FunctionResponse<S>>,
    /// Inline bytes (images).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline_data: Option<Blob<S>>,
    /// Text (a thought summary when `thought` is true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<S>,
    /// True when the part is a thought summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought: Option<bool>,
    /// Opaque signature of the model's reasoning, replayed byte for byte.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<S>,
}

/// `{id?, args, name}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FunctionCall<S = String, V = Value> {
    /// Call id; sent only for models that need one, and usually absent in responses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<S>,
    /// The arguments object (`null` when the response had none).
    #[serde(default)]
    pub args: V,
    /// Function name.
    #[serde(default)]
    pub name: S,
}

/// `{name, response, parts?, id?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionResponse<S = String> {
    /// Name of the function that ran.
    pub name: S,
    /// `{"output": text}` or `{"error": text}`.
    pub response: FunctionResult<S>,
    /// Images nested in the response (Gemini 3 and non-Gemini models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<FunctionResponsePart<S>>>,
    /// Call id, for models that need one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<S>,
}

/// The `response` object of a function response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FunctionResult<S = String> {
    /// `{"output": text}`: the tool succeeded.
    Output(S),
    /// `{"error": text}`: the tool failed.
    Error(S),
}

/// `{inlineData}` nested in a function response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionResponsePart<S = String> {
    /// The image.
    pub inline_data: Blob<S>,
}

/// Inline bytes: `{data, mimeType}` with base64 data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Blob<S = String> {
    /// Base64-encoded bytes.
    pub data: S,
    /// MIME type such as `image/png`.
    pub mime_type: S,
}

impl Content<'_> {
    /// The same turn owning its texts.
    pub fn into_owned(self) -> Content<'static> {
        Content {
            parts: self.parts.into_iter().map(Part::into_owned).collect(),
            role: self.role,
        }
    }
}

impl RequestPart<'_> {
    /// The same part owning its texts.
    pub fn into_owned(self) -> RequestPart<'static> {
        Part {
            function_call: self.function_call.map(|call| FunctionCall {
                id: call.id.map(owned),
                args: Cow::Owned(call.args.into_owned()),
                name: owned(call.name),
            }),
            function_response: self.function_response.map(|response| FunctionResponse {
                name: owned(response.name),
                response: match response.response {
                    FunctionResult::Output(text) => FunctionResult::Output(owned(text)),
                    FunctionResult::Error(text) => FunctionResult::Error(owned(text)),
                },
                parts: response.parts.map(|parts| {
                    parts
                        .into_iter()
                        .map(|part| FunctionResponsePart {
                            inline_data: part.inline_data.into_owned(),
                        })
                        .collect()
                }),
                id: response.id.map(owned),
            }),
            inline_data: self.inline_data.map(Blob::into_owned),
            text: self.text.map(owned),
            thought: self.thought,
            thought_signature: self.thought_signature.map(owned),
        }
    }
}

impl Blob<Cow<'_, str>> {
    /// The same blob owning its bytes.
    pub fn into_owned(self) -> Blob<Cow<'static, str>> {
        Blob {
            data: owned(self.data),
            mime_type: owned(self.mime_type),
        }
    }
}

/// A text owned, so it outlives what it was borrowed from.
fn owned(text: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(text.into_owned())
}

/// `{functionDeclarations}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDeclarations {
    /// The functions.
    pub function_declarations: Vec<FunctionDeclaration>,
}

/// `{name, description, parametersJsonSchema}`: full JSON Schema, not the OpenAPI subset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionDeclaration {
    /// Function name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters_json_schema: Value,
}

/// `{functionCallingConfig: {mode}}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolConfig {
    /// The calling mode.
    pub function_calling_config: FunctionCallingConfig,
}

/// `{mode}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCallingConfig {
    /// Whether and how the model calls functions.
    pub mode: FunctionCallingMode,
}

/// Gemini's function-calling mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FunctionCallingMode {
    /// The model decides.
    Auto,
    /// No function calls.
    None,
    /// The model must call a function.
    Any,
}

/// `{temperature?, maxOutputTokens?, thinkingConfig?}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerationConfig {
    /// Sampling temperature (whole numbers written without a fraction, as JavaScript does).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "js_number"
    )]
    pub temperature: Option<f64>,
    /// Output token limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    /// Reasoning settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_config: Option<ThinkingConfig>,
}

/// `{includeThoughts?, thinkingLevel?, thinkingBudget?}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingConfig {
    /// Stream thought summaries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_thoughts: Option<bool>,
    /// Reasoning level (Gemini 3, Gemma 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_level: Option<GoogleThinkingLevel>,
    /// Reasoning token budget (Gemini 2.x): `-1` dynamic, `0` off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_budget: Option<i64>,
}

/// Gemini's `thinkingLevel` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum GoogleThinkingLevel {
    /// Least reasoning (Flash models).
    Minimal,
    /// Low.
    Low,
    /// Medium (Flash models).
    Medium,
    /// High.
    High,
}

/// Writes a whole `f64` as an integer (`1` rather than `1.0`), as JSON.stringify does.
fn js_number<S: Serializer>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    // |x| < 2^53 with no fraction converts to i64 exactly.
    const MAX_EXACT: f64 = 9_007_199_254_740_992.0;
    match *value {
        Some(x) if x.fract() == 0.0 && x.abs() < MAX_EXACT => serializer.serialize_i64(x as i64),
        Some(x) => serializer.serialize_f64(x),
        None => serializer.serialize_none(),
    }
}

/// One chunk of the SSE stream: a partial `GenerateContentResponse`, or an
/// `{error}` object some proxies and the API send inside the stream.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamChunk {
    /// Candidates; pi reads only the first.
    #[serde(default)]
    pub candidates: Vec<Candidate>,
    /// Token counts so far (the last chunk has the totals).
    #[serde(default)]
    pub usage_metadata: Option<UsageMetadata>,
    /// Model version that answered.
    #[serde(default)]
    pub model_version: Option<String>,
    /// Response id, the same on every chunk.
    #[serde(default)]
    pub response_id: Option<String>,
    /// Set when the prompt itself was blocked (then there are no candidates).
    #[serde(default)]
    pub prompt_feedback: Option<PromptFeedback>,
    /// An error reported inside the stream.
    #[serde(default)]
    pub error: Option<StreamError>,
}

/// One candidate answer.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    /// The new parts of this chunk.
    #[serde(default)]
    pub content: Option<CandidateContent>,
    /// Why generation stopped (last chunk only).
    #[serde(default)]
    pub finish_reason: Option<String>,
}

/// The content of a candidate chunk.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct CandidateContent {
    /// Parts in order.
    #[serde(default)]
    pub parts: Vec<Part>,
}

/// `usageMetadata` token counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageMetadata {
    /// Prompt tokens, cached ones included.
    #[serde(default)]
    pub prompt_token_count: u64,
    /// Answer tokens, thoughts excluded.
    #[serde(default)]
    pub candidates_token_count: u64,
    /// Thought tokens.
    #[serde(default)]
    pub thoughts_token_count: u64,
    /// Prompt tokens served from the context cache.
    #[serde(default)]
    pub cached_content_token_count: u64,
    /// The API's total.
    #[serde(default)]
    pub total_token_count: u64,
}

/// `promptFeedback`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptFeedback {
    /// Why the prompt was blocked, e.g. `SAFETY`.
    #[serde(default)]
    pub block_reason: Option<String>,
}

/// `{code, message, status}` of an error object.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
pub struct StreamError {
    /// HTTP-like status code.
    #[serde(default)]
    pub code: Option<u16>,
    /// Human-readable text.
    #[serde(default)]
    pub message: Option<String>,
    /// Canonical status such as `RESOURCE_EXHAUSTED`.
    #[serde(default)]
    pub status: Option<String>,
}
