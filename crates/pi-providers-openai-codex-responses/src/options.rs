//! Options of an openai-codex-responses call (pi's `OpenAICodexResponsesOptions`).

use pi_ai::{Model, SimpleStreamOptions, StreamOptions, ThinkingLevel};
use pi_http::WireOptions;
use pi_providers_openai_responses::{OpenAiResponsesOptions, ReasoningSummary};

/// Options of one Codex call.
#[derive(Debug, Clone, Default)]
pub struct OpenAiCodexOptions {
    /// Options every provider takes (`max_tokens` is not sent: the backend
    /// takes none).
    pub base: StreamOptions,
    /// Reasoning effort; `None` sends no `reasoning`.
    pub reasoning_effort: Option<ThinkingLevel>,
    /// Reasoning summary mode (`auto` when unset).
    pub reasoning_summary: Option<ReasoningSummary>,
    /// Text verbosity (`low` when unset).
    pub text_verbosity: Option<String>,
    /// Service tier; also prices a response that says `default`.
    pub service_tier: Option<String>,
}

impl WireOptions for OpenAiCodexOptions {
    fn base(&self) -> &StreamOptions {
        &self.base
    }

    fn base_mut(&mut self) -> &mut StreamOptions {
        &mut self.base
    }

    /// pi's `streamSimpleOpenAICodexResponses`: the level clamped to what
    /// the model supports (`off` sends no effort), as openai-responses.
    fn from_simple(model: &Model, options: SimpleStreamOptions) -> Self {
        let responses = OpenAiResponsesOptions::from_simple(model, options);
        Self {
            base: responses.base,
            reasoning_effort: responses.reasoning_effort,
            ..Self::default()
        }
    }
}
