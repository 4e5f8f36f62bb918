//! Typed JSON of the Azure request body. Azure takes the OpenAI Responses
//! API's input items, tools and reasoning object (re-exported from
//! `pi_providers_openai_responses::wire`), in a body pi builds with fewer
//! fields: no `store`, no cache retention, no service tier.

use serde::Serialize;

use pi_providers_openai_responses::wire::serialize_js_number;
pub use pi_providers_openai_responses::wire::{FunctionTool, InputItem, Reasoning, StreamEvent};

/// The body of `POST {base}/responses`, in the order pi builds it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestBody<'a> {
    /// The deployment name (the model id unless mapped).
    pub model: String,
    /// The conversation as input items.
    pub input: Vec<InputItem<'a>>,
    /// Always true: pi streams.
    pub stream: bool,
    /// pi's session id, when the call has one (whatever the cache retention).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<String>,
    /// Output token limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    /// Sampling temperature.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_js_number"
    )]
    pub temperature: Option<f64>,
    /// Function tools (`strict: false`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<FunctionTool>>,
    /// Reasoning effort and summary mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
    /// `["reasoning.encrypted_content"]` when an effort or summary is asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include: Option<Vec<String>>,
}
