//! Options of a model call: the common [`StreamOptions`] and the unified
//! [`SimpleStreamOptions`] with a reasoning level.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::{Model, PayloadHook, ResponseHook};

/// How long a provider should keep the prompt cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CacheRetention {
    /// No cache breakpoints.
    None,
    /// The provider's default (about five minutes).
    #[default]
    Short,
    /// Long retention (Anthropic one hour, OpenAI 24 hours) where supported.
    Long,
}

/// How a provider with more than one transport reaches its backend (pi's
/// `Transport`; only openai-codex-responses has a choice).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Transport {
    /// Server-sent events over an HTTP POST.
    Sse,
    /// A WebSocket per session, the full context every call.
    Websocket,
    /// A WebSocket per session, continuing the previous response with only
    /// the new input.
    WebsocketCached,
    /// A cached WebSocket, falling back to SSE when it fails (pi's default).
    #[default]
    Auto,
}

impl Transport {
    /// The name pi writes (`sse`, `websocket`, `websocket-cached`, `auto`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sse => "sse",
            Self::Websocket => "websocket",
            Self::WebsocketCached => "websocket-cached",
            Self::Auto => "auto",
        }
    }

    /// The transport named `text`; `None` for a name pi does not know.
    pub fn parse(text: &str) -> Option<Self> {
        [
            Self::Sse,
            Self::Websocket,
            Self::WebsocketCached,
            Self::Auto,
        ]
        .into_iter()
        .find(|transport| transport.as_str() == text)
    }
}

/// A unified reasoning level, mapped by each provider to its own knob.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ThinkingLevel {
    /// Least reasoning.
    Minimal,
    /// Low.
    Low,
    /// Medium.
    Medium,
    /// High.
    High,
    /// Extra high (clamped to high for models without support).
    Xhigh,
}

impl ThinkingLevel {
    /// Every level, least reasoning first.
    pub const ALL: [Self; 5] = [
        Self::Minimal,
        Self::Low,
        Self::Medium,
        Self::High,
        Self::Xhigh,
    ];

    /// Every setting in pi's order, `off` (`None`) first: the order pi
    /// cycles through and lists them.
    pub const SETTINGS: [Option<Self>; 6] = [
        None,
        Some(Self::Minimal),
        Some(Self::Low),
        Some(Self::Medium),
        Some(Self::High),
        Some(Self::Xhigh),
    ];

    /// The names of [`Self::SETTINGS`] as pi writes them.
    pub const SETTING_NAMES: [&'static str; 6] =
        ["off", "minimal", "low", "medium", "high", "xhigh"];

    /// The level as pi writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Minimal => "minimal",
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Xhigh => "xhigh",
        }
    }

    /// A setting as pi writes it: the level's name, `off` for `None`.
    ///
    /// ```
    /// use pi_ai::ThinkingLevel;
    /// assert_eq!(ThinkingLevel::setting_name(None), "off");
    /// assert_eq!(ThinkingLevel::setting_name(Some(ThinkingLevel::High)), "high");
    /// ```
    pub fn setting_name(level: Option<Self>) -> &'static str {
        level.map_or("off", Self::as_str)
    }

    /// Parses a setting as pi writes it: `off` is `None`, a level's name
    /// is that level, anything else is an error.
    ///
    /// ```
    /// use pi_ai::ThinkingLevel;
    /// assert_eq!(ThinkingLevel::parse_setting("off"), Ok(None));
    /// assert_eq!(ThinkingLevel::parse_setting("xhigh"), Ok(Some(ThinkingLevel::Xhigh)));
    /// assert!(ThinkingLevel::parse_setting("max").is_err());
    /// ```
    pub fn parse_setting(text: &str) -> Result<Option<Self>, ParseThinkingLevelError> {
        if text == "off" {
            return Ok(None);
        }
        text.parse().map(Some).map_err(|_| ParseThinkingLevelError {
            text: text.to_owned(),
            valid: "off, minimal, low, medium, high, xhigh",
        })
    }
}

impl fmt::Display for ThinkingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ThinkingLevel {
    type Err = ParseThinkingLevelError;

    /// Parses a level's name as pi writes it (`off` is not a level: see
    /// [`ThinkingLevel::parse_setting`]).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|level| level.as_str() == text)
            .ok_or_else(|| ParseThinkingLevelError {
                text: text.to_owned(),
                valid: "minimal, low, medium, high, xhigh",
            })
    }
}

/// Text that names no thinking level.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid thinking level \"{text}\" ({valid})")]
pub struct ParseThinkingLevelError {
    text: String,
    valid: &'static str,
}

/// Token budgets per reasoning level, for budget-based providers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingBudgets {
    /// Budget for `minimal`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimal: Option<u64>,
    /// Budget for `low`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low: Option<u64>,
    /// Budget for `medium`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub medium: Option<u64>,
    /// Budget for `high`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high: Option<u64>,
}

impl ThinkingBudgets {
    /// pi's default budgets: 1024 / 2048 / 8192 / 16384 tokens.
    pub const DEFAULT: Self = Self {
        minimal: Some(1024),
        low: Some(2048),
        medium: Some(8192),
        high: Some(16384),
    };

    /// The budget for `level` (`xhigh` uses `high`), falling back to the defaults.
    pub fn budget(&self, level: ThinkingLevel) -> u64 {
        let pick = |mine: Option<u64>, default: Option<u64>| mine.or(default).unwrap_or(0);
        let d = Self::DEFAULT;
        match level {
            ThinkingLevel::Minimal => pick(self.minimal, d.minimal),
            ThinkingLevel::Low => pick(self.low, d.low),
            ThinkingLevel::Medium => pick(self.medium, d.medium),
            ThinkingLevel::High | ThinkingLevel::Xhigh => pick(self.high, d.high),
        }
    }
}

/// Options common to every provider.
#[derive(Clone, Default)]
pub struct StreamOptions {
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Maximum output tokens.
    pub max_tokens: Option<u64>,
    /// Cancels the call; the stream then ends with stopReason `aborted`.
    pub cancel: CancellationToken,
    /// API key; when absent the provider's environment variable is used.
    pub api_key: Option<String>,
    /// Prompt-cache retention.
    pub cache_retention: Option<CacheRetention>,
    /// Session id, used by providers with session-scoped caching.
    pub session_id: Option<String>,
    /// Extra HTTP headers.
    pub headers: BTreeMap<String, String>,
    /// Longest server-requested retry delay to honour; `Some(ZERO)` removes the cap (pi default 60 s).
    pub max_retry_delay: Option<Duration>,
    /// Retries of a failed request before the answer starts (pi's `maxRetries`, which it hands
    /// to the SDK clients of Anthropic and OpenAI); `None` keeps the transport's default.
    pub max_retries: Option<u32>,
    /// Longest wait for response headers (pi's `timeoutMs`); `None` is the transport default.
    pub timeout: Option<Duration>,
    /// Longest silence allowed mid-stream; `None` is the transport default.
    pub idle_timeout: Option<Duration>,
    /// Request metadata (e.g. Anthropic `user_id`).
    pub metadata: Option<serde_json::Map<String, Value>>,
    /// Inspects or replaces the request body before it is sent (pi's
    /// `onPayload`); awaited once per call.
    pub on_payload: Option<PayloadHook>,
    /// Observes the status and headers of each HTTP answer before its body
    /// is read (pi's `onResponse`); awaited.
    pub on_response: Option<ResponseHook>,
    /// Preferred transport of providers that have several (`None` is the
    /// provider's default, `auto` for Codex).
    pub transport: Option<Transport>,
}

impl fmt::Debug for StreamOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamOptions")
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("cancelled", &self.cancel.is_cancelled())
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("cache_retention", &self.cache_retention)
            .field("session_id", &self.session_id)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("max_retry_delay", &self.max_retry_delay)
            .field("timeout", &self.timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("metadata", &self.metadata)
            .field("on_payload", &self.on_payload.is_some())
            .field("on_response", &self.on_response.is_some())
            .field("transport", &self.transport)
            .field("max_retries", &self.max_retries)
            .finish()
    }
}

/// Options of `stream_simple`: the common options plus one reasoning level.
#[derive(Debug, Clone, Default)]
pub struct SimpleStreamOptions {
    /// The common options.
    pub base: StreamOptions,
    /// Reasoning level; `None` turns reasoning off.
    pub reasoning: Option<ThinkingLevel>,
    /// Budgets per level for budget-based providers.
    pub thinking_budgets: Option<ThinkingBudgets>,
}

impl SimpleStreamOptions {
    /// pi's default output limit for simple calls: `min(model.maxTokens, 32000)`.
    pub fn max_tokens_for(&self, model: &Model) -> u64 {
        self.base
            .max_tokens
            .unwrap_or_else(|| model.max_tokens.min(32_000))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transports_are_named_as_pi_names_them() {
        for name in ["sse", "websocket", "websocket-cached", "auto"] {
            let transport = Transport::parse(name).unwrap();
            assert_eq!(transport.as_str(), name);
            assert_eq!(serde_json::to_value(transport).unwrap(), name);
        }
        assert_eq!(Transport::parse("ws"), None);
        assert_eq!(Transport::default(), Transport::Auto);
    }

    #[test]
    fn thinking_levels_parse_and_print_as_pi_writes_them() {
        for (level, name) in ThinkingLevel::SETTINGS
            .into_iter()
            .zip(ThinkingLevel::SETTING_NAMES)
        {
            assert_eq!(ThinkingLevel::setting_name(level), name);
            assert_eq!(ThinkingLevel::parse_setting(name), Ok(level));
            if let Some(level) = level {
                assert_eq!(level.to_string(), name);
                assert_eq!(name.parse::<ThinkingLevel>(), Ok(level));
                assert_eq!(serde_json::to_value(level).unwrap(), name);
            }
        }
        assert_eq!(
            "off".parse::<ThinkingLevel>().unwrap_err().to_string(),
            "invalid thinking level \"off\" (minimal, low, medium, high, xhigh)"
        );
        assert_eq!(
            ThinkingLevel::parse_setting("max").unwrap_err().to_string(),
            "invalid thinking level \"max\" (off, minimal, low, medium, high, xhigh)"
        );
    }
}
