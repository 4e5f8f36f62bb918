//! Token usage, cost and stop reasons.

use serde::{Deserialize, Serialize};

/// Cost in dollars per usage bucket, plus the total. Missing buckets (old
/// session files) read as 0.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Cost {
    /// Cost of input tokens.
    #[serde(serialize_with = "crate::json_number::serialize")]
    pub input: f64,
    /// Cost of output tokens.
    #[serde(serialize_with = "crate::json_number::serialize")]
    pub output: f64,
    /// Cost of cache reads.
    #[serde(serialize_with = "crate::json_number::serialize")]
    pub cache_read: f64,
    /// Cost of cache writes.
    #[serde(serialize_with = "crate::json_number::serialize")]
    pub cache_write: f64,
    /// Sum of the above.
    #[serde(serialize_with = "crate::json_number::serialize")]
    pub total: f64,
}

/// Token usage of one model call. Fields that old session files lack
/// (`totalTokens`, `cost`, ...) read as 0, as pi's `undefined` adds up.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Usage {
    /// Input tokens not served from cache.
    pub input: u64,
    /// Output tokens (reasoning included).
    pub output: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write: u64,
    /// input + output + cacheRead + cacheWrite.
    pub total_tokens: u64,
    /// Cost derived from the model's prices.
    pub cost: Cost,
}

/// Why an assistant message ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    /// Still streaming (placeholder, replaced before the message settles).
    Pending,
    /// The model finished its turn.
    Stop,
    /// The output token limit was reached.
    Length,
    /// The model called one or more tools.
    ToolUse,
    /// The request or stream failed; `errorMessage` says why.
    Error,
    /// The request was cancelled.
    Aborted,
    /// The result will arrive later through a deferred handle.
    Deferred,
}

impl StopReason {
    /// True for `error` and `aborted`: the turn did not complete.
    pub fn is_failure(self) -> bool {
        matches!(self, Self::Error | Self::Aborted)
    }
}
