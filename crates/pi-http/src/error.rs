//! Transport errors and their classification.

use std::time::Duration;

use pi_ai::ErrorClass;
use serde_json::Value;

/// What went wrong on the way to, or while reading, a provider response.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HttpError {
    /// The server answered with a non-success status.
    #[error("{status} {message}")]
    Status {
        /// HTTP status code.
        status: u16,
        /// The provider's error text, extracted from the body.
        message: String,
        /// The raw body.
        body: String,
        /// Delay the server asked for (`retry-after-ms` / `retry-after`).
        retry_after: Option<Duration>,
        /// The response headers (lower-case names), for clients that read
        /// the error's name from them.
        headers: Vec<(String, String)>,
    },
    /// The connection failed or was reset.
    #[error("Connection error: {0}")]
    Connection(String),
    /// No response headers arrived within the first-byte timeout.
    #[error("Request timed out: no response from the server after {}", seconds(.0))]
    Timeout(Duration),
    /// No bytes arrived for the idle timeout.
    #[error("Stream idle timeout: no data received for {}", seconds(.0))]
    Idle(Duration),
    /// Reading the body failed mid-stream.
    #[error("Stream error: {0}")]
    Stream(String),
    /// The server asked to wait longer than the configured maximum.
    #[error("{status} {message} (server requested a retry after {} s, above the {} s limit)", .requested.as_secs(), .limit.as_secs())]
    RetryDelayTooLong {
        /// HTTP status code.
        status: u16,
        /// The provider's error text.
        message: String,
        /// Requested delay.
        requested: Duration,
        /// Configured maximum.
        limit: Duration,
    },
    /// The request could not be built (bad URL or header).
    #[error("Invalid request: {0}")]
    InvalidRequest(String),
    /// The call was cancelled.
    #[error("Request was aborted")]
    Aborted,
}

/// `"90 s"`, or `"0.5 s"` below a second.
fn seconds(duration: &Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs >= 1.0 && duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{secs} s")
    }
}

impl HttpError {
    /// The error's class.
    pub fn class(&self) -> ErrorClass {
        match self {
            Self::Status { status, .. } | Self::RetryDelayTooLong { status, .. } => {
                ErrorClass::of_status(*status).unwrap_or(ErrorClass::Client)
            }
            Self::Connection(_) | Self::Stream(_) => ErrorClass::Connection,
            Self::Timeout(_) | Self::Idle(_) => ErrorClass::Timeout,
            Self::InvalidRequest(_) => ErrorClass::Client,
            Self::Aborted => ErrorClass::Aborted,
        }
    }

    /// True when sending the same request again may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::RetryDelayTooLong { .. } => false,
            _ => self.class().is_transient(),
        }
    }
}

/// `"<status> <text>"` as OpenAI-style client libraries word an HTTP error:
/// the text is `error.message` of a JSON body (other JSON is written
/// compactly), the raw body when it is not JSON, or `status code (no body)`.
pub fn status_error_message(status: u16, body: &str) -> String {
    let text = match serde_json::from_str::<Value>(body.trim()) {
        Ok(value) => match value.get("error") {
            Some(Value::Object(error)) => match error.get("message") {
                Some(Value::String(message)) => message.clone(),
                Some(other) => other.to_string(),
                None => Value::Object(error.clone()).to_string(),
            },
            Some(other) => other.to_string(),
            None => String::new(),
        },
        Err(_) => body.trim().to_owned(),
    };
    if text.is_empty() {
        format!("{status} status code (no body)")
    } else {
        format!("{status} {text}")
    }
}

/// The provider's error text from an error body: `error.message`,
/// `message`, a string `error`, or `detail`; else the trimmed body; else
/// `status code (no body)`.
pub fn error_text_from_body(body: &str) -> String {
    let trimmed = body.trim();
    if trimmed.is_empty() {
        return "status code (no body)".to_owned();
    }
    if let Ok(value) = serde_json::from_str::<Value>(trimmed) {
        let candidates = [
            value.pointer("/error/message"),
            value.pointer("/message"),
            value.pointer("/error"),
            value.pointer("/detail"),
            // Google wraps errors in an array on some endpoints.
            value.pointer("/0/error/message"),
        ];
        for candidate in candidates.into_iter().flatten() {
            if let Value::String(text) = candidate {
                return text.clone();
            }
        }
    }
    trimmed.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_text_comes_from_the_provider_body() {
        let openai = r#"{"error":{"message":"The server had an error","type":"server_error"}}"#;
        assert_eq!(error_text_from_body(openai), "The server had an error");
        let anthropic =
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        assert_eq!(error_text_from_body(anthropic), "Overloaded");
        assert_eq!(error_text_from_body(r#"{"error":"bad key"}"#), "bad key");
        assert_eq!(
            error_text_from_body(r#"[{"error":{"message":"quota"}}]"#),
            "quota"
        );
        assert_eq!(error_text_from_body("upstream down\n"), "upstream down");
        assert_eq!(error_text_from_body(""), "status code (no body)");
    }

    #[test]
    fn status_messages_read_like_the_openai_client() {
        let body = r#"{"error":{"message":"The server had an error","type":"server_error"}}"#;
        assert_eq!(
            status_error_message(500, body),
            "500 The server had an error"
        );
        assert_eq!(
            status_error_message(502, "Bad gateway\n"),
            "502 Bad gateway"
        );
        assert_eq!(status_error_message(500, ""), "500 status code (no body)");
        assert_eq!(
            status_error_message(500, r#"{"detail":"x"}"#),
            "500 status code (no body)"
        );
        assert_eq!(
            status_error_message(401, r#"{"error":"bad key"}"#),
            "401 \"bad key\""
        );
    }

    #[test]
    fn classes_follow_status_codes() {
        let status = |status| HttpError::Status {
            status,
            message: String::new(),
            body: String::new(),
            retry_after: None,
            headers: Vec::new(),
        };
        assert_eq!(status(429).class(), ErrorClass::RateLimited);
        assert_eq!(status(401).class(), ErrorClass::Auth);
        assert_eq!(status(503).class(), ErrorClass::Server);
        assert_eq!(
            HttpError::Idle(Duration::from_secs(1)).class(),
            ErrorClass::Timeout
        );
        assert_eq!(status(400).class(), ErrorClass::Client);
        assert!(status(500).is_retryable());
        assert!(!status(400).is_retryable());
        assert!(HttpError::Connection("reset".into()).is_retryable());
        assert!(!HttpError::Aborted.is_retryable());
        assert_eq!(status(500).to_string(), "500 ");
    }
}
