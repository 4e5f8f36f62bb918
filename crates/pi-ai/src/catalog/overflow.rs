//! Context-overflow detection (pi's `utils/overflow.ts`).

use std::sync::OnceLock;

use regex::{RegexSet, RegexSetBuilder};

use crate::{AssistantMessage, StopReason};

/// Error phrasings (matched case-insensitively) that mean the request did
/// not fit the model's context window, with an example of each.
pub(super) const OVERFLOW_PATTERNS: &[&str] = &[
    // Anthropic: "prompt is too long: 213462 tokens > 200000 maximum"
    r"prompt is too long",
    // Amazon Bedrock: "input is too long for requested model"
    r"input is too long for requested model",
    // OpenAI (Completions and Responses): "Your input exceeds the context window of this model"
    r"exceeds the context window",
    // Google: "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)"
    r"input token count.*exceeds the maximum",
    // xAI: "This model's maximum prompt length is 131072 but the request contains 537812 tokens"
    r"maximum prompt length is [0-9]+",
    // Groq: "Please reduce the length of the messages or completion"
    r"reduce the length of the messages",
    // OpenRouter: "This endpoint's maximum context length is X tokens. However, you requested about Y tokens"
    r"maximum context length is [0-9]+ tokens",
    // GitHub Copilot: "prompt token count of X exceeds the limit of Y"
    r"exceeds the limit of [0-9]+",
    // llama.cpp: "the request exceeds the available context size, try increasing it"
    r"exceeds the available context size",
    // LM Studio: "tokens to keep from the initial prompt is greater than the context length"
    r"greater than the context length",
    // MiniMax: "invalid params, context window exceeds limit"
    r"context window exceeds limit",
    // Kimi For Coding: "Your request exceeded model token limit: X (requested: Y)"
    r"exceeded model token limit",
    // Mistral: "Prompt contains X tokens ... too large for model with Y maximum context length"
    r"too large for model with [0-9]+ maximum context length",
    // z.ai: its non-standard finish reason surfaced as error text
    r"model_context_window_exceeded",
    // Generic fallbacks.
    r"context[_ ]length[_ ]exceeded",
    r"too many tokens",
    r"token limit exceeded",
    // Cerebras: "400 status code (no body)" / "413 (no body)". 429 is rate limiting, not overflow.
    r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)",
];

/// The compiled [`OVERFLOW_PATTERNS`], or `None` if they failed to compile
/// (logged once; detection then relies on the silent-overflow check alone).
fn overflow_patterns() -> Option<&'static RegexSet> {
    static PATTERNS: OnceLock<Option<RegexSet>> = OnceLock::new();
    PATTERNS
        .get_or_init(|| {
            RegexSetBuilder::new(OVERFLOW_PATTERNS)
                .case_insensitive(true)
                .build()
                .map_err(
                    |error| tracing::error!(%error, "context-overflow patterns failed to compile"),
                )
                .ok()
        })
        .as_ref()
}

/// True when `text` is a provider's context-overflow error.
pub(super) fn is_overflow_error_text(text: &str) -> bool {
    overflow_patterns().is_some_and(|patterns| patterns.is_match(text))
}

/// True when `message` shows that the context did not fit the model
/// (pi's `isContextOverflow`):
///
/// - stop reason `error` and an `errorMessage` matching a known provider
///   overflow phrasing (Anthropic, OpenAI, Google, xAI, Groq, OpenRouter,
///   Copilot, llama.cpp, LM Studio, MiniMax, Kimi, Mistral, z.ai, Bedrock,
///   Cerebras' bodiless 400/413, generic fallbacks);
/// - silent overflow (z.ai style): stop reason `stop` and
///   `usage.input + usage.cacheRead` above `context_window`, checked only
///   when a non-zero window is given.
pub fn is_context_overflow(message: &AssistantMessage, context_window: Option<u64>) -> bool {
    if message.stop_reason == StopReason::Error
        && message
            .error_message
            .as_deref()
            .is_some_and(is_overflow_error_text)
    {
        return true;
    }
    match context_window {
        Some(window) if window > 0 && message.stop_reason == StopReason::Stop => {
            message.usage.input.saturating_add(message.usage.cache_read) > window
        }
        _ => false,
    }
}
