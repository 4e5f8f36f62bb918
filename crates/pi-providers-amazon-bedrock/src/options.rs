//! Options of the `bedrock-converse-stream` wire (pi's `BedrockOptions`) and
//! the mapping of pi's unified reasoning level (`streamSimpleBedrock`).

use std::collections::BTreeMap;

use pi_ai::{
    CacheRetention, Model, SimpleStreamOptions, StreamOptions, ThinkingBudgets, ThinkingLevel,
};
use pi_http::WireOptions;

use crate::models::{is_anthropic_claude, supports_adaptive_thinking};

/// pi's `toolChoice` for Bedrock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// The model must call some tool.
    Any,
    /// No tools are sent at all.
    None,
    /// The model must call this tool.
    Tool(String),
}

/// Options of one call.
#[derive(Debug, Clone, Default)]
pub struct BedrockOptions {
    /// Common options (max tokens, temperature, cache retention, ...).
    pub base: StreamOptions,
    /// AWS region (else `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's).
    pub region: Option<String>,
    /// AWS profile (else `AWS_PROFILE`, else `default`).
    pub profile: Option<String>,
    /// Bedrock API key sent as a bearer token (else `AWS_BEARER_TOKEN_BEDROCK`).
    pub bearer_token: Option<String>,
    /// Tool choice.
    pub tool_choice: Option<ToolChoice>,
    /// Reasoning level (Claude models only reach the request).
    pub reasoning: Option<ThinkingLevel>,
    /// Budgets per level.
    pub thinking_budgets: Option<ThinkingBudgets>,
    /// Interleaved thinking beta for budget-based Claude models (default on).
    pub interleaved_thinking: Option<bool>,
    /// Claude's `thinking.display` (default `summarized`).
    pub thinking_display: Option<String>,
    /// `requestMetadata`.
    pub request_metadata: Option<BTreeMap<String, String>>,
    /// Set by [`pi_http::Wire::prepare`] from the environment.
    pub resolved: Resolved,
}

/// What the request body needs from the environment, resolved once per
/// call so that encoding stays pure.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    /// The cache retention (option, else `PI_CACHE_RETENTION`, else short).
    pub cache_retention: CacheRetention,
    /// `AWS_BEDROCK_FORCE_CACHE=1`: cache points for models whose id and
    /// name do not say Claude (application inference profiles).
    pub force_cache: bool,
    /// The configured region (option, `AWS_REGION`, `AWS_DEFAULT_REGION`).
    pub region: Option<String>,
}

impl BedrockOptions {
    /// pi's `streamSimpleBedrock`: max tokens defaulted to
    /// `min(model.maxTokens, 32000)`; for budget-based Claude models asked
    /// to think, the limit grows by the level's budget (pi's
    /// `adjustMaxTokensForThinking`) and that budget is used.
    pub fn from_simple(model: &Model, options: &SimpleStreamOptions) -> Self {
        let mut base = options.base.clone();
        let max_tokens = options.max_tokens_for(model);
        base.max_tokens = Some(max_tokens);
        let mut out = Self {
            base,
            ..Self::default()
        };
        let Some(level) = options.reasoning else {
            return out;
        };
        out.reasoning = Some(level);
        out.thinking_budgets = options.thinking_budgets;
        if is_anthropic_claude(model) && !supports_adaptive_thinking(model) {
            let (max_tokens, budget) = adjust_max_tokens_for_thinking(
                max_tokens,
                model.max_tokens,
                level,
                options.thinking_budgets.as_ref(),
            );
            out.base.max_tokens = Some(max_tokens);
            let mut budgets = options.thinking_budgets.unwrap_or_default();
            match level {
                ThinkingLevel::Minimal => budgets.minimal = Some(budget),
                ThinkingLevel::Low => budgets.low = Some(budget),
                ThinkingLevel::Medium => budgets.medium = Some(budget),
                ThinkingLevel::High | ThinkingLevel::Xhigh => budgets.high = Some(budget),
            }
            out.thinking_budgets = Some(budgets);
        }
        out
    }
}

/// pi's `adjustMaxTokensForThinking`: the limit grows by the budget (up to
/// the model's limit); when it cannot hold the budget, the budget shrinks to
/// leave 1024 output tokens. Returns `(max_tokens, budget)`.
pub fn adjust_max_tokens_for_thinking(
    base_max_tokens: u64,
    model_max_tokens: u64,
    level: ThinkingLevel,
    budgets: Option<&ThinkingBudgets>,
) -> (u64, u64) {
    const MIN_OUTPUT_TOKENS: u64 = 1024;
    let mut budget = budgets.copied().unwrap_or_default().budget(level);
    let max_tokens = base_max_tokens.saturating_add(budget).min(model_max_tokens);
    if max_tokens <= budget {
        budget = max_tokens.saturating_sub(MIN_OUTPUT_TOKENS);
    }
    (max_tokens, budget)
}

impl WireOptions for BedrockOptions {
    fn base(&self) -> &StreamOptions {
        &self.base
    }

    fn base_mut(&mut self) -> &mut StreamOptions {
        &mut self.base
    }

    fn from_stream(_model: &Model, base: StreamOptions) -> Self {
        Self {
            base,
            ..Self::default()
        }
    }

    /// See [`BedrockOptions::from_simple`].
    fn from_simple(model: &Model, options: SimpleStreamOptions) -> Self {
        Self::from_simple(model, &options)
    }
}
