//! Typed JSON of the Codex request body. The ChatGPT backend takes the
//! OpenAI Responses API's input items and reasoning object (re-exported
//! from `pi_providers_openai_responses::wire`) in a body of its own: the
//! system prompt as `instructions`, a text verbosity, tools with
//! `strict: null`.

use serde::Serialize;
use serde_json::Value;

use pi_providers_openai_responses::wire::serialize_js_number;
pub use pi_providers_openai_responses::wire::{InputItem, Reasoning, StreamEvent};

/// The body of `POST {baseUrl}/codex/responses`, in the order pi builds it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestBody<'a> {
    /// Model id.
    pub model: String,
    /// Always false (the backend rejects `store: true`).
    pub store: bool,
    /// Always true.
    pub stream: bool,
    /// The system prompt, or pi's default instructions.
    pub instructions: String,
    /// The conversation (without the system prompt).
    pub input: Vec<InputItem<'a>>,
    /// `{verbosity}`.
    pub text: TextOptions,
    /// Always `["reasoning.encrypted_content"]`.
    pub include: Vec<String>,
    /// pi's session id, when the call has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<String>,
    /// Always `auto`.
    pub tool_choice: &'static str,
    /// Always true.
    pub parallel_tool_calls: bool,
    /// Sampling temperature.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_js_number"
    )]
    pub temperature: Option<f64>,
    /// Service tier (`flex`, `priority`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<String>,
    /// Function tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<CodexTool>>,
    /// Reasoning effort and summary mode, when an effort is asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
}

/// `text` of the body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TextOptions {
    /// `low` unless the call asks for another verbosity.
    pub verbosity: String,
}

/// `{type:"function", name, description, parameters, strict:null}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename = "function")]
pub struct CodexTool {
    /// Tool name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters: Value,
    /// pi sends `null`.
    pub strict: Option<bool>,
}
