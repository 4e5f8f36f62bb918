//! Which provider errors are worth retrying. A failure the transport
//! classified (HTTP status, timeout, connection) is decided by its
//! [`ErrorClass`]; pi 0.73.1's message-text rule is kept for failures that
//! come without a class (a provider's error event inside a 200 stream, a
//! stream cut short, a message read back from a session file).

use std::sync::OnceLock;

use pi_ai::{AssistantMessage, ErrorClass, StopReason};
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
    if let Some(class) = message.error_class {
        return is_retryable_class(class);
    }
    let text = message.error_message.as_deref().unwrap_or_default();
    retryable_pattern().is_some_and(|p| p.is_match(text))
}

/// Rate limits, server errors, connection failures and timeouts are
/// retried (pi retries the texts of all four, "timed out" and "timeout"
/// among them, so a first-byte or idle timeout is retried too); auth,
/// client errors and answers that are not event streams are not.
fn is_retryable_class(class: ErrorClass) -> bool {
    class.is_transient()
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

    fn classified(text: &str, class: ErrorClass) -> AssistantMessage {
        let mut m = failed(text);
        m.error_class = Some(class);
        m
    }

    #[test]
    fn a_class_decides_over_the_text() {
        for class in [
            ErrorClass::RateLimited,
            ErrorClass::Server,
            ErrorClass::Timeout,
            ErrorClass::Connection,
        ] {
            assert!(is_retryable_error(
                &classified("no pattern here", class),
                100_000
            ));
        }
        // Texts pi's rule would match, but the class says the request is wrong.
        for class in [
            ErrorClass::Auth,
            ErrorClass::Client,
            ErrorClass::InvalidResponse,
        ] {
            let message = classified("400 max_tokens: 50000 > 32000", class);
            assert!(!is_retryable_error(&message, 100_000), "{class:?}");
        }
    }

    #[test]
    fn timeouts_are_retried_like_pi() {
        let first_byte = classified(
            "openai: Request timed out: no response from the server after 600 s",
            ErrorClass::Timeout,
        );
        assert!(is_retryable_error(&first_byte, 100_000));
        // The same texts read back from a session file (no class).
        assert!(is_retryable_error(&failed("Request timed out."), 100_000));
        assert!(is_retryable_error(
            &failed("Stream idle timeout: no data received for 300 s"),
            100_000
        ));
    }

    #[test]
    fn overflow_wins_over_a_transient_class() {
        let message = classified(
            "400 prompt is too long: 300000 tokens > 200000 maximum",
            ErrorClass::Server,
        );
        assert!(!is_retryable_error(&message, 100_000));
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
