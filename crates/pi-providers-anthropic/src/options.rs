//! Options of the Anthropic wire, the per-model compatibility switches, and
//! the mapping from pi's unified reasoning level to thinking settings.

use pi_ai::{
    CacheRetention, Model, SimpleStreamOptions, StreamOptions, ThinkingBudgets, ThinkingLevel,
};
use pi_http::WireOptions;
use serde_json::Value;

/// Budget thinking keeps at least this many tokens for the visible answer.
const MIN_OUTPUT_TOKENS: u64 = 1024;

/// Budget used when thinking is on but no budget was given (pi's default).
pub const DEFAULT_THINKING_BUDGET: u64 = 1024;

/// Effort of adaptive thinking (`output_config.effort`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effort {
    /// Minimal thinking.
    Low,
    /// Moderate thinking.
    Medium,
    /// Deep thinking.
    High,
    /// Highest level (Opus 4.7).
    Xhigh,
    /// No constraints (Opus 4.6).
    Max,
    /// A model-specific value from the model's `thinkingLevelMap`.
    Other(String),
}

impl Effort {
    /// The value as sent on the wire.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Xhigh => "xhigh",
            Self::Max => "max",
            Self::Other(value) => value,
        }
    }
}

/// How thinking text comes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThinkingDisplay {
    /// Summarized thinking text (pi's default).
    #[default]
    Summarized,
    /// Empty thinking text; only the signature travels.
    Omitted,
}

impl ThinkingDisplay {
    /// The value as sent on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Summarized => "summarized",
            Self::Omitted => "omitted",
        }
    }
}

/// Which tools the model may call (`tool_choice`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoiceOption {
    /// The model decides.
    Auto,
    /// Some tool must be called.
    Any,
    /// No tool may be called.
    None,
    /// This tool must be called.
    Tool(String),
}

/// Options of one Anthropic call: the common options plus the wire's own
/// (pi's `AnthropicOptions`).
#[derive(Debug, Clone, Default)]
pub struct AnthropicOptions {
    /// The common options.
    pub base: StreamOptions,
    /// `Some(true)` enables thinking, `Some(false)` sends `thinking:
    /// {type:"disabled"}` to reasoning models, `None` sends nothing.
    pub thinking_enabled: Option<bool>,
    /// Budget of budget-based thinking (default 1024).
    pub thinking_budget_tokens: Option<u64>,
    /// Effort of adaptive thinking.
    pub effort: Option<Effort>,
    /// How thinking comes back (default summarized).
    pub thinking_display: Option<ThinkingDisplay>,
    /// Ask for the interleaved-thinking beta on non-adaptive models (default true).
    pub interleaved_thinking: Option<bool>,
    /// `tool_choice`.
    pub tool_choice: Option<ToolChoiceOption>,
}

impl From<StreamOptions> for AnthropicOptions {
    fn from(base: StreamOptions) -> Self {
        Self {
            base,
            ..Self::default()
        }
    }
}

impl WireOptions for AnthropicOptions {
    fn base(&self) -> &StreamOptions {
        &self.base
    }

    fn base_mut(&mut self) -> &mut StreamOptions {
        &mut self.base
    }

    /// See [`simple_to_anthropic`].
    fn from_simple(model: &Model, options: SimpleStreamOptions) -> Self {
        simple_to_anthropic(model, options)
    }
}

/// The model's `compat` switches for Anthropic-compatible servers (pi's
/// `AnthropicMessagesCompat`); unset switches take pi's defaults.
///
/// pi 0.73.1 knows the first two; the other four come from later pi
/// versions and are opt-in: their defaults keep 0.73.1's behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnthropicCompat {
    /// Send `eager_input_streaming` per tool; when false the
    /// `fine-grained-tool-streaming` beta header is sent instead (default true).
    pub supports_eager_tool_input_streaming: bool,
    /// Honour long cache retention with `ttl: "1h"` (default true).
    pub supports_long_cache_retention: bool,
    /// Put a cache breakpoint on the last tool (default true).
    pub supports_cache_control_on_tools: bool,
    /// Send `x-session-affinity: <sessionId>` (default false).
    pub send_session_affinity_headers: bool,
    /// Replay unsigned thinking as thinking with an empty signature instead
    /// of plain text (default false).
    pub allow_empty_signature: bool,
    /// Use adaptive thinking whatever the model id says (default false).
    pub force_adaptive_thinking: bool,
}

impl AnthropicCompat {
    /// The switches of `model` (from `model.compat`), defaults filled in.
    pub fn of(model: &Model) -> Self {
        let flag = |name: &str, default: bool| {
            model
                .compat
                .as_ref()
                .and_then(|compat| compat.get(name))
                .and_then(Value::as_bool)
                .unwrap_or(default)
        };
        Self {
            supports_eager_tool_input_streaming: flag("supportsEagerToolInputStreaming", true),
            supports_long_cache_retention: flag("supportsLongCacheRetention", true),
            supports_cache_control_on_tools: flag("supportsCacheControlOnTools", true),
            send_session_affinity_headers: flag("sendSessionAffinityHeaders", false),
            allow_empty_signature: flag("allowEmptySignature", false),
            force_adaptive_thinking: flag("forceAdaptiveThinking", false),
        }
    }
}

/// True for models that take adaptive thinking instead of a budget: Opus
/// and Sonnet 4.6, Opus 4.7, or any model with `compat.forceAdaptiveThinking`.
pub fn uses_adaptive_thinking(model: &Model) -> bool {
    const ADAPTIVE_ID_MARKERS: [&str; 6] = [
        "opus-4-6",
        "opus-4.6",
        "sonnet-4-6",
        "sonnet-4.6",
        "opus-4-7",
        "opus-4.7",
    ];
    AnthropicCompat::of(model).force_adaptive_thinking
        || ADAPTIVE_ID_MARKERS
            .iter()
            .any(|marker| model.id.contains(marker))
}

/// The adaptive effort for `level`: the model's `thinkingLevelMap` entry if
/// it is a string, else minimal/low -> low, medium -> medium, high -> high,
/// xhigh -> `max` on Opus 4.6, `xhigh` on Opus 4.7, `high` elsewhere.
///
/// pi 0.73.1 maps xhigh to `high` and gets `max`/`xhigh` from the
/// `thinkingLevelMap` of its catalog entries for Opus 4.6/4.7; our catalog
/// has no such maps, so the model id stands in for them.
pub fn effort_for(model: &Model, level: ThinkingLevel) -> Effort {
    if let Some(mapped) = model
        .extra
        .get("thinkingLevelMap")
        .and_then(|map| map.get(level.as_str()))
        .and_then(Value::as_str)
    {
        return Effort::Other(mapped.to_owned());
    }
    match level {
        ThinkingLevel::Minimal | ThinkingLevel::Low => Effort::Low,
        ThinkingLevel::Medium => Effort::Medium,
        ThinkingLevel::High => Effort::High,
        ThinkingLevel::Xhigh => {
            let id = model.id.as_str();
            if id.contains("opus-4-6") || id.contains("opus-4.6") {
                Effort::Max
            } else if id.contains("opus-4-7") || id.contains("opus-4.7") {
                Effort::Xhigh
            } else {
                Effort::High
            }
        }
    }
}

/// pi's `adjustMaxTokensForThinking`: the output limit grows by the budget
/// (up to the model's limit), and when the limit cannot hold the budget the
/// budget shrinks to leave 1024 tokens of output. Returns `(max_tokens, budget)`.
pub fn adjust_max_tokens_for_thinking(
    base_max_tokens: u64,
    model_max_tokens: u64,
    level: ThinkingLevel,
    budgets: Option<&ThinkingBudgets>,
) -> (u64, u64) {
    let mut budget = budgets.copied().unwrap_or_default().budget(level);
    let max_tokens = base_max_tokens.saturating_add(budget).min(model_max_tokens);
    if max_tokens <= budget {
        budget = max_tokens.saturating_sub(MIN_OUTPUT_TOKENS);
    }
    (max_tokens, budget)
}

/// pi's `streamSimpleAnthropic` option mapping: the output limit defaults to
/// `min(model.maxTokens, 32000)`; no reasoning level turns thinking off;
/// adaptive models get an effort; the others a budget fitted into the limit.
pub fn simple_to_anthropic(model: &Model, options: SimpleStreamOptions) -> AnthropicOptions {
    let max_tokens = options.max_tokens_for(model);
    let mut base = options.base;
    base.max_tokens = Some(max_tokens);
    let Some(level) = options.reasoning else {
        return AnthropicOptions {
            thinking_enabled: Some(false),
            ..AnthropicOptions::from(base)
        };
    };
    if uses_adaptive_thinking(model) {
        return AnthropicOptions {
            thinking_enabled: Some(true),
            effort: Some(effort_for(model, level)),
            ..AnthropicOptions::from(base)
        };
    }
    let (max_tokens, budget) = adjust_max_tokens_for_thinking(
        max_tokens,
        model.max_tokens,
        level,
        options.thinking_budgets.as_ref(),
    );
    base.max_tokens = Some(max_tokens);
    AnthropicOptions {
        thinking_enabled: Some(true),
        thinking_budget_tokens: Some(budget),
        ..AnthropicOptions::from(base)
    }
}

/// The cache retention of a call: the option if given, else `long` when the
/// environment variable `PI_CACHE_RETENTION` is `long`, else `short`.
pub fn resolve_cache_retention(
    option: Option<CacheRetention>,
    env: impl Fn(&str) -> Option<String>,
) -> CacheRetention {
    match option {
        Some(retention) => retention,
        None if env("PI_CACHE_RETENTION").as_deref() == Some("long") => CacheRetention::Long,
        None => CacheRetention::Short,
    }
}

#[cfg(test)]
#[path = "options_tests.rs"]
mod tests;
