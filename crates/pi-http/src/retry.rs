//! Retry policy: exponential backoff with jitter, honouring server-requested delays.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::header::HeaderMap;

/// When and how long to wait before sending a failed request again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 disables retrying).
    pub max_retries: u32,
    /// Backoff before the first retry; doubled for each further retry.
    pub initial_delay: Duration,
    /// Upper bound of the computed backoff.
    pub max_backoff: Duration,
    /// Longest server-requested delay to honour; a longer request fails at
    /// once. `None` or zero removes the cap.
    pub max_retry_delay: Option<Duration>,
}

impl Default for RetryPolicy {
    /// Two retries from 0.5 s, backoff capped at 8 s, server delays up to 60 s
    /// (the behaviour of the SDKs pi uses, and pi's `maxRetryDelayMs`).
    fn default() -> Self {
        Self {
            max_retries: 2,
            initial_delay: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            max_retry_delay: Some(Duration::from_secs(60)),
        }
    }
}

impl RetryPolicy {
    /// A policy that never retries.
    pub const NONE: Self = Self {
        max_retries: 0,
        initial_delay: Duration::ZERO,
        max_backoff: Duration::ZERO,
        max_retry_delay: None,
    };

    /// The default policy, honouring the call's `max_retry_delay` and
    /// `max_retries` when set.
    pub fn for_options(options: &pi_ai::StreamOptions) -> Self {
        let mut policy = Self::default();
        if let Some(limit) = options.max_retry_delay {
            policy.max_retry_delay = Some(limit);
        }
        if let Some(retries) = options.max_retries {
            policy.max_retries = retries;
        }
        policy
    }

    /// The backoff before retry number `retry` (0-based), with up to 25% jitter removed.
    pub fn backoff(&self, retry: u32) -> Duration {
        let factor = 2u32.saturating_pow(retry.min(16));
        let base = self
            .initial_delay
            .saturating_mul(factor)
            .min(self.max_backoff);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let jitter = f64::from(nanos % 1000) / 1000.0 * 0.25;
        base.mul_f64(1.0 - jitter)
    }

    /// The cap on server-requested delays, if any.
    pub fn delay_cap(&self) -> Option<Duration> {
        self.max_retry_delay.filter(|d| !d.is_zero())
    }
}

/// The delay a response asks for: `retry-after-ms`, else `retry-after` in
/// seconds or as an HTTP date.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(seconds(ms / 1000.0));
    }
    let value = text("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| seconds(secs));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// `secs` (finite, not negative) as a duration; one too long for a
/// `Duration` is the longest there is (then over any cap).
fn seconds(secs: f64) -> Duration {
    Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX)
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    #[test]
    fn backoff_doubles_and_is_capped() {
        let policy = RetryPolicy::default();
        let first = policy.backoff(0);
        assert!(
            first <= Duration::from_millis(500) && first >= Duration::from_millis(375),
            "{first:?}"
        );
        let third = policy.backoff(2);
        assert!(
            third <= Duration::from_secs(2) && third >= Duration::from_millis(1500),
            "{third:?}"
        );
        assert!(policy.backoff(10) <= Duration::from_secs(8));
    }

    #[test]
    fn retry_after_headers_are_read() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("3"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(3)));
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(250)));
        let mut dated = HeaderMap::new();
        dated.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(
            retry_after(&dated),
            Some(Duration::ZERO),
            "a past date means now"
        );
        assert_eq!(retry_after(&HeaderMap::new()), None);
        // Too long for a Duration: the longest one, over any cap (it panicked).
        let mut huge = HeaderMap::new();
        huge.insert(
            "retry-after",
            HeaderValue::from_static("99999999999999999999"),
        );
        assert_eq!(retry_after(&huge), Some(Duration::MAX));
        huge.insert("retry-after-ms", HeaderValue::from_static("1e300"));
        assert_eq!(retry_after(&huge), Some(Duration::MAX));
    }

    #[test]
    fn zero_cap_means_no_cap() {
        let policy = RetryPolicy {
            max_retry_delay: Some(Duration::ZERO),
            ..RetryPolicy::default()
        };
        assert_eq!(policy.delay_cap(), None);
    }
}
