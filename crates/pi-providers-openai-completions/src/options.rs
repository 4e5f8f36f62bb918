//! Options of the `openai-completions` wire and the mapping from pi's
//! unified reasoning level.

use pi_ai::{
    CacheRetention, Model, SimpleStreamOptions, StreamOptions, ThinkingLevel, supports_xhigh,
};
use pi_http::WireOptions;

use crate::wire::ToolChoice;

/// Options of one `openai-completions` call: the common options plus the
/// wire's own (pi's `OpenAICompletionsOptions`).
#[derive(Debug, Clone, Default)]
pub struct OpenAiCompletionsOptions {
    /// Common options (max tokens, temperature, key, headers, cache, ...).
    pub base: StreamOptions,
    /// `tool_choice`.
    pub tool_choice: Option<ToolChoice>,
    /// Reasoning level; sent only to reasoning models.
    pub reasoning_effort: Option<ThinkingLevel>,
}

impl OpenAiCompletionsOptions {
    /// What pi's `streamSimple` passes on: max tokens defaulted to
    /// `min(model.maxTokens, 32000)`, and the reasoning level with `xhigh`
    /// clamped to `high` unless the model supports it.
    pub fn from_simple(model: &Model, options: &SimpleStreamOptions) -> Self {
        let mut base = options.base.clone();
        base.max_tokens = Some(options.max_tokens_for(model));
        let reasoning_effort = options.reasoning.map(|level| match level {
            ThinkingLevel::Xhigh if !supports_xhigh(model) => ThinkingLevel::High,
            other => other,
        });
        Self {
            base,
            tool_choice: None,
            reasoning_effort,
        }
    }
}

impl WireOptions for OpenAiCompletionsOptions {
    fn base(&self) -> &StreamOptions {
        &self.base
    }

    fn base_mut(&mut self) -> &mut StreamOptions {
        &mut self.base
    }

    /// See [`OpenAiCompletionsOptions::from_simple`].
    fn from_simple(model: &Model, options: SimpleStreamOptions) -> Self {
        Self::from_simple(model, &options)
    }
}

/// The cache retention in effect: the option, else `long` when
/// `PI_CACHE_RETENTION=long`, else `short`.
pub fn effective_cache_retention(options: &StreamOptions) -> CacheRetention {
    options.cache_retention.unwrap_or_else(|| {
        match std::env::var("PI_CACHE_RETENTION").as_deref() {
            Ok("long") => CacheRetention::Long,
            _ => CacheRetention::Short,
        }
    })
}
