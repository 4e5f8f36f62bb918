//! Google-specific options and the mapping of pi's unified reasoning level
//! onto Gemini's `thinkingConfig` (a level for Gemini 3 and Gemma 4, a token
//! budget for Gemini 2.x).

use pi_ai::{Model, SimpleStreamOptions, StreamOptions, ThinkingBudgets, ThinkingLevel};

use pi_http::WireOptions;

use crate::wire::{FunctionCallingMode, GoogleThinkingLevel, ThinkingConfig};

/// Options of a Google call: the common ones plus tool choice and thinking.
#[derive(Debug, Clone, Default)]
pub struct GoogleOptions {
    /// Options common to every provider.
    pub base: StreamOptions,
    /// Function-calling mode; sent only when tools are given.
    pub tool_choice: Option<FunctionCallingMode>,
    /// Reasoning switch; `None` sends no `thinkingConfig` at all.
    pub thinking: Option<ThinkingSetting>,
}

impl WireOptions for GoogleOptions {
    fn base(&self) -> &StreamOptions {
        &self.base
    }

    fn base_mut(&mut self) -> &mut StreamOptions {
        &mut self.base
    }

    /// See [`simple_options`].
    fn from_simple(model: &Model, options: SimpleStreamOptions) -> Self {
        simple_options(model, &options)
    }
}

/// pi's `thinking: {enabled, budgetTokens?, level?}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ThinkingSetting {
    /// Reasoning on or off.
    pub enabled: bool,
    /// Token budget: `-1` dynamic, `0` off (Gemini 2.x).
    pub budget_tokens: Option<i64>,
    /// Level (Gemini 3, Gemma 4); wins over the budget.
    pub level: Option<GoogleThinkingLevel>,
}

impl ThinkingSetting {
    /// Reasoning off.
    pub const OFF: Self = Self {
        enabled: false,
        budget_tokens: None,
        level: None,
    };
}

/// The `thinkingConfig` for `thinking` on `model`: thoughts included with
/// the level or budget when enabled on a reasoning model; the lowest
/// setting the model allows when disabled on a reasoning model; nothing for
/// a model without reasoning or when no setting is given.
pub fn thinking_config(model: &Model, thinking: Option<ThinkingSetting>) -> Option<ThinkingConfig> {
    let thinking = thinking?;
    if !model.reasoning {
        return None;
    }
    if !thinking.enabled {
        return Some(disabled_thinking_config(model));
    }
    let mut config = ThinkingConfig {
        include_thoughts: Some(true),
        ..ThinkingConfig::default()
    };
    if thinking.level.is_some() {
        config.thinking_level = thinking.level;
    } else {
        config.thinking_budget = thinking.budget_tokens;
    }
    Some(config)
}

/// Thinking "off": Gemini 3 Pro cannot disable it (lowest level `LOW`),
/// Gemini 3 Flash and Gemma 4 go down to `MINIMAL`, without thoughts in the
/// answer; Gemini 2.x takes a zero budget.
fn disabled_thinking_config(model: &Model) -> ThinkingConfig {
    let level = if is_gemini3(model, "pro") {
        Some(GoogleThinkingLevel::Low)
    } else if is_gemini3(model, "flash") || is_gemma4(model) {
        Some(GoogleThinkingLevel::Minimal)
    } else {
        None
    };
    match level {
        Some(level) => ThinkingConfig {
            thinking_level: Some(level),
            ..ThinkingConfig::default()
        },
        None => ThinkingConfig {
            thinking_budget: Some(0),
            ..ThinkingConfig::default()
        },
    }
}

/// pi's `streamSimple` options for Google: `maxTokens` defaults to
/// `min(model.maxTokens, 32000)` (none for a model that declares 0); no
/// reasoning level means thinking disabled; otherwise the level (`xhigh`
/// counts as `high`) becomes a `thinkingLevel` on Gemini 3 Pro/Flash and
/// Gemma 4, and a token budget elsewhere.
pub fn simple_options(model: &Model, options: &SimpleStreamOptions) -> GoogleOptions {
    let mut base = options.base.clone();
    if base.max_tokens.is_none() && model.max_tokens > 0 {
        base.max_tokens = Some(options.max_tokens_for(model));
    }
    let thinking = match options.reasoning {
        None => ThinkingSetting::OFF,
        Some(level) if uses_thinking_level(model) => ThinkingSetting {
            enabled: true,
            budget_tokens: None,
            level: Some(thinking_level(model, level)),
        },
        Some(level) => ThinkingSetting {
            enabled: true,
            budget_tokens: Some(thinking_budget(
                model,
                level,
                options.thinking_budgets.as_ref(),
            )),
            level: None,
        },
    };
    GoogleOptions {
        base,
        tool_choice: None,
        thinking: Some(thinking),
    }
}

/// True for models configured by `thinkingLevel` rather than a budget.
fn uses_thinking_level(model: &Model) -> bool {
    is_gemini3(model, "pro") || is_gemini3(model, "flash") || is_gemma4(model)
}

/// The `thinkingLevel` for `level`: Gemini 3 Pro knows only LOW/HIGH, Gemma 4
/// only MINIMAL/HIGH, the others all four.
pub fn thinking_level(model: &Model, level: ThinkingLevel) -> GoogleThinkingLevel {
    use GoogleThinkingLevel as G;
    let low = matches!(level, ThinkingLevel::Minimal | ThinkingLevel::Low);
    if is_gemini3(model, "pro") {
        return if low { G::Low } else { G::High };
    }
    if is_gemma4(model) {
        return if low { G::Minimal } else { G::High };
    }
    match level {
        ThinkingLevel::Minimal => G::Minimal,
        ThinkingLevel::Low => G::Low,
        ThinkingLevel::Medium => G::Medium,
        ThinkingLevel::High | ThinkingLevel::Xhigh => G::High,
    }
}

/// The token budget for `level`: the caller's budget when set, else pi's
/// tables for Gemini 2.5 Pro / Flash-Lite / Flash, else `-1` (dynamic).
pub fn thinking_budget(
    model: &Model,
    level: ThinkingLevel,
    custom: Option<&ThinkingBudgets>,
) -> i64 {
    let custom = custom.and_then(|b| match level {
        ThinkingLevel::Minimal => b.minimal,
        ThinkingLevel::Low => b.low,
        ThinkingLevel::Medium => b.medium,
        ThinkingLevel::High | ThinkingLevel::Xhigh => b.high,
    });
    if let Some(budget) = custom {
        return i64::try_from(budget).unwrap_or(i64::MAX);
    }
    // minimal, low, medium, high
    let table: [i64; 4] = if model.id.contains("2.5-pro") {
        [128, 2048, 8192, 32768]
    } else if model.id.contains("2.5-flash-lite") {
        [512, 2048, 8192, 24576]
    } else if model.id.contains("2.5-flash") {
        [128, 2048, 8192, 24576]
    } else {
        return -1;
    };
    match level {
        ThinkingLevel::Minimal => table[0],
        ThinkingLevel::Low => table[1],
        ThinkingLevel::Medium => table[2],
        ThinkingLevel::High | ThinkingLevel::Xhigh => table[3],
    }
}

/// pi's `/gemini-3(?:\.\d+)?-<family>/` on the lower-cased id.
pub fn is_gemini3(model: &Model, family: &str) -> bool {
    let id = model.id.to_lowercase();
    id.match_indices("gemini-3").any(|(at, marker)| {
        let mut rest = &id[at + marker.len()..];
        if let Some(minor) = rest.strip_prefix('.') {
            let digits = minor.len() - minor.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits > 0 {
                rest = &minor[digits..];
            }
        }
        rest.strip_prefix('-')
            .is_some_and(|tail| tail.starts_with(family))
    })
}

/// pi's `/gemma-?4/` on the lower-cased id.
pub fn is_gemma4(model: &Model) -> bool {
    let id = model.id.to_lowercase();
    id.contains("gemma4") || id.contains("gemma-4")
}

/// True for Gemini 3 models by pi's loose `includes("gemini-3")` test, which
/// decides the unsigned-function-call sentinel.
pub(crate) fn is_gemini3_any(model: &Model) -> bool {
    model.id.to_lowercase().contains("gemini-3")
}

/// Models behind Google APIs that need explicit call ids in function calls
/// and responses (Claude and gpt-oss via Google).
pub(crate) fn requires_tool_call_id(model: &Model) -> bool {
    model.id.starts_with("claude-") || model.id.starts_with("gpt-oss-")
}

/// Whether images may be nested in a function response: Gemini 3 and later,
/// and any non-Gemini model; Gemini 1.x/2.x need a separate user turn.
pub(crate) fn supports_multimodal_function_response(model: &Model) -> bool {
    let id = model.id.to_lowercase();
    let Some(rest) = id.strip_prefix("gemini-") else {
        return true;
    };
    let rest = rest.strip_prefix("live-").unwrap_or(rest);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    match digits.parse::<u32>() {
        Ok(major) => major >= 3,
        Err(_) => true,
    }
}

#[cfg(test)]
#[path = "options_tests.rs"]
mod tests;
