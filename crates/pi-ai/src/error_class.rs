//! The class of a failed call, carried on the failed message so callers
//! decide (retry, re-authenticate, compact) without re-reading its text.

/// What kind of failure ended a stream. It is set by the transport when it
/// knows (an HTTP status, a timeout, a reset connection) and absent for
/// failures reported inside a successful stream (a provider's `error` event),
/// whose text is all there is. It is never written to a session file: pi's
/// JSON has no such field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorClass {
    /// 429: too many requests; slow down and try again.
    RateLimited,
    /// 401 / 403: the key is missing, wrong or not allowed.
    Auth,
    /// No response headers within the first-byte timeout, or a stream
    /// silent for longer than the idle timeout.
    Timeout,
    /// 5xx, 408 and 409: the server failed or asked for a retry.
    Server,
    /// The connection failed, was reset, or the body could not be read.
    Connection,
    /// Another 4xx, or a request that could not be built: the request
    /// itself is wrong (context overflows are among these).
    Client,
    /// A success status whose body is not an event stream, or is empty.
    InvalidResponse,
    /// The caller cancelled the call.
    Aborted,
}

impl ErrorClass {
    /// The class of an HTTP error status (`None` for a success or an
    /// informational status).
    pub fn of_status(status: u16) -> Option<Self> {
        Some(match status {
            429 => Self::RateLimited,
            401 | 403 => Self::Auth,
            408 | 409 | 500..=599 => Self::Server,
            400..=499 => Self::Client,
            _ => return None,
        })
    }

    /// True when sending the same request again may succeed: rate limits,
    /// server errors, timeouts and connection failures.
    pub fn is_transient(self) -> bool {
        matches!(
            self,
            Self::RateLimited | Self::Server | Self::Timeout | Self::Connection
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_classes() {
        assert_eq!(ErrorClass::of_status(429), Some(ErrorClass::RateLimited));
        assert_eq!(ErrorClass::of_status(403), Some(ErrorClass::Auth));
        assert_eq!(ErrorClass::of_status(529), Some(ErrorClass::Server));
        assert_eq!(ErrorClass::of_status(408), Some(ErrorClass::Server));
        assert_eq!(ErrorClass::of_status(404), Some(ErrorClass::Client));
        assert_eq!(ErrorClass::of_status(200), None);
        assert!(ErrorClass::Timeout.is_transient());
        assert!(!ErrorClass::Auth.is_transient());
        assert!(!ErrorClass::InvalidResponse.is_transient());
    }
}
