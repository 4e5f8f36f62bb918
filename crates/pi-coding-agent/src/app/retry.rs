//! Which provider errors are worth retrying (pi 0.73.1's list, plus our
//! transport's own "Stream error" / "Stream idle" wording).

use std::sync::OnceLock;

use pi_ai::{AssistantMessage, StopReason};
use regex::Regex;

fn retryable_pattern() -> Option<&'static Regex> {
    static PATTERN: OnceLock<Option<Regex>> = OnceLock::new();
    PATTERN
        .get_or_init(|| {
            Regex::new(
                r"(?i)overloaded|provider.?returned.?error|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|internal.?error|network.?error|connection.?error|connection.?refused|connection.?lost|websocket.?closed|websocket.?error|other side closed|fetch failed|upstream.?connect|reset before headers|socket hang up|ended without|http2 request did not get a response|timed? out|timeout|terminated|retry delay|stream error|stream idle",
            )
            .map_err(|e| tracing::error!("retry pattern does not compile: {e}"))
            .ok()
        })
        .as_ref()
}

/// True when `message` failed with a transient provider error (and not a
/// context overflow, which compaction handles instead).
pub fn is_retryable_error(message: &AssistantMessage, context_window: u64) -> bool {
    if message.stop_reason != StopReason::Error {
        return false;
    }
    if pi_ai::is_context_overflow(message, Some(context_window)) {
        return false;
    }
    let text = message.error_message.as_deref().unwrap_or_default();
    retryable_pattern().is_some_and(|p| p.is_match(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(text: &str) -> AssistantMessage {
        let mut m = AssistantMessage::empty("openai-completions".into(), "p".into(), "m", 0);
        m.stop_reason = StopReason::Error;
        m.error_message = Some(text.to_owned());
        m
    }

    #[test]
    fn transient_errors_are_retryable() {
        for text in [
            "500 The server had an error while processing your request. Sorry about that!",
            "429 Rate limited",
            "Overloaded",
            "Connection error: connection refused",
            "Stream error: error decoding response body",
        ] {
            assert!(is_retryable_error(&failed(text), 100_000), "{text}");
        }
    }

    #[test]
    fn other_errors_and_overflows_are_not() {
        assert!(!is_retryable_error(
            &failed("401 invalid x-api-key"),
            100_000
        ));
        assert!(!is_retryable_error(
            &failed("400 prompt is too long: 300000 tokens > 200000 maximum"),
            100_000
        ));
        let mut ok = failed("500");
        ok.stop_reason = StopReason::Stop;
        assert!(!is_retryable_error(&ok, 100_000));
    }
}
