use super::overflow::OVERFLOW_PATTERNS;
use crate::{Api, AssistantMessage, Provider, StopReason, Usage, is_context_overflow};

fn message(stop_reason: StopReason, error: Option<&str>, usage: Usage) -> AssistantMessage {
    let mut message = AssistantMessage::empty(Api::ANTHROPIC_MESSAGES, Provider::ANTHROPIC, "m", 0);
    message.stop_reason = stop_reason;
    message.error_message = error.map(str::to_owned);
    message.usage = usage;
    message
}

fn error(text: &str) -> AssistantMessage {
    message(StopReason::Error, Some(text), Usage::default())
}

fn with_input(stop_reason: StopReason, input: u64, cache_read: u64) -> AssistantMessage {
    let usage = Usage {
        input,
        cache_read,
        ..Usage::default()
    };
    message(stop_reason, None, usage)
}

/// One real error text per provider phrasing.
const PROVIDER_ERRORS: &[(&str, &str)] = &[
    (
        "anthropic",
        "prompt is too long: 213462 tokens > 200000 maximum",
    ),
    (
        "bedrock",
        "ValidationException: Input is too long for requested model.",
    ),
    (
        "openai",
        "Your input exceeds the context window of this model. Please adjust your input and try again.",
    ),
    (
        "google",
        "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
    ),
    (
        "xai",
        "This model's maximum prompt length is 131072 but the request contains 537812 tokens.",
    ),
    (
        "groq",
        "Please reduce the length of the messages or completion.",
    ),
    (
        "openrouter",
        "This endpoint's maximum context length is 200000 tokens. However, you requested about 250000 tokens.",
    ),
    (
        "copilot",
        "prompt token count of 130000 exceeds the limit of 128000",
    ),
    (
        "llama.cpp",
        "the request exceeds the available context size, try increasing it",
    ),
    (
        "lm studio",
        "The number of tokens to keep from the initial prompt is greater than the context length.",
    ),
    (
        "minimax",
        "invalid params, context window exceeds limit (2013)",
    ),
    (
        "kimi",
        "Your request exceeded model token limit: 262144 (requested: 300000)",
    ),
    (
        "mistral",
        "Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length",
    ),
    (
        "z.ai",
        "Provider finish_reason: model_context_window_exceeded",
    ),
    (
        "generic context_length_exceeded",
        "Error code: 400 - context_length_exceeded",
    ),
    (
        "generic context length exceeded",
        "Context length exceeded for this request",
    ),
    ("generic too many tokens", "Request has Too Many Tokens"),
    ("generic token limit", "Token limit exceeded"),
    ("cerebras 400", "400 status code (no body)"),
    ("cerebras 413", "413 (no body)"),
    ("cerebras uppercase", "413 Status Code (No Body)"),
];

#[test]
fn each_provider_phrasing_is_an_overflow() {
    for (provider, text) in PROVIDER_ERRORS {
        assert!(
            is_context_overflow(&error(text), None),
            "{provider}: {text}"
        );
        assert!(
            is_context_overflow(&error(text), Some(200_000)),
            "{provider}: {text}"
        );
    }
}

#[test]
fn matching_ignores_case() {
    assert!(is_context_overflow(&error("PROMPT IS TOO LONG"), None));
    assert!(is_context_overflow(
        &error("Maximum Context Length Is 8192 Tokens"),
        None
    ));
}

#[test]
fn every_pattern_is_exercised() {
    let set = regex::RegexSetBuilder::new(OVERFLOW_PATTERNS)
        .case_insensitive(true)
        .build()
        .unwrap();
    for (index, pattern) in OVERFLOW_PATTERNS.iter().enumerate() {
        assert!(
            PROVIDER_ERRORS
                .iter()
                .any(|(_, text)| set.matches(text).matched(index)),
            "no example for {pattern}"
        );
    }
}

#[test]
fn unrelated_errors_are_not_overflow() {
    for text in [
        "429 Too Many Requests: rate limit reached",
        "429 status code (no body)",
        "500 Internal Server Error",
        "Request was aborted",
        "An unknown error occurred",
        "invalid x-api-key",
        "maximum context length is unknown",
        // Cerebras' phrasing only counts at the start of the message.
        "upstream said 400 status code (no body)",
        "",
    ] {
        assert!(
            !is_context_overflow(&error(text), Some(1_000_000)),
            "{text}"
        );
    }
    assert!(!is_context_overflow(
        &message(StopReason::Error, None, Usage::default()),
        None
    ));
}

#[test]
fn overflow_text_counts_only_with_error_stop_reason() {
    let text = "prompt is too long: 213462 tokens > 200000 maximum";
    for stop_reason in [
        StopReason::Stop,
        StopReason::Length,
        StopReason::ToolUse,
        StopReason::Aborted,
        StopReason::Pending,
        StopReason::Deferred,
    ] {
        let message = message(stop_reason, Some(text), Usage::default());
        assert!(!is_context_overflow(&message, None), "{stop_reason:?}");
        assert!(
            !is_context_overflow(&message, Some(200_000)),
            "{stop_reason:?}"
        );
    }
}

#[test]
fn silent_overflow_counts_input_plus_cache_read() {
    assert!(is_context_overflow(
        &with_input(StopReason::Stop, 150_000, 60_000),
        Some(200_000)
    ));
    assert!(is_context_overflow(
        &with_input(StopReason::Stop, 200_001, 0),
        Some(200_000)
    ));
    // Exactly at the window is not an overflow.
    assert!(!is_context_overflow(
        &with_input(StopReason::Stop, 150_000, 50_000),
        Some(200_000)
    ));
    assert!(!is_context_overflow(
        &with_input(StopReason::Stop, 1_000, 0),
        Some(200_000)
    ));
}

#[test]
fn silent_overflow_needs_a_window_and_stop() {
    let big = with_input(StopReason::Stop, 500_000, 0);
    assert!(!is_context_overflow(&big, None));
    // A zero window means "unknown", like pi's falsy check.
    assert!(!is_context_overflow(&big, Some(0)));
    for stop_reason in [
        StopReason::Length,
        StopReason::ToolUse,
        StopReason::Error,
        StopReason::Aborted,
        StopReason::Pending,
        StopReason::Deferred,
    ] {
        let message = with_input(stop_reason, 500_000, 0);
        assert!(
            !is_context_overflow(&message, Some(200_000)),
            "{stop_reason:?}"
        );
    }
}
