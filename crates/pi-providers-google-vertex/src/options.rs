//! Vertex call options and pi's reasoning mapping for this wire, which
//! differs from the Gemini API's in two places: no Gemma 4 rules (a Gemma 4
//! id gets a token budget, and "off" is a zero budget), and no Flash-Lite
//! table (`2.5-flash-lite` takes the 2.5 Flash budgets).

use pi_ai::{Model, SimpleStreamOptions, StreamOptions, ThinkingBudgets, ThinkingLevel};
use pi_http::WireOptions;
use pi_providers_google::wire::ThinkingConfig;
use pi_providers_google::{GoogleOptions, ThinkingSetting, is_gemini3, is_gemma4};

/// Options of a Vertex call: the Gemini ones plus project and location.
#[derive(Debug, Clone, Default)]
pub struct VertexOptions {
    /// Common options, tool choice and thinking, as for the Gemini API.
    pub google: GoogleOptions,
    /// Google Cloud project (else `GOOGLE_CLOUD_PROJECT` / `GCLOUD_PROJECT`).
    pub project: Option<String>,
    /// Location (else `GOOGLE_CLOUD_LOCATION`).
    pub location: Option<String>,
}

impl WireOptions for VertexOptions {
    fn base(&self) -> &StreamOptions {
        &self.google.base
    }

    fn base_mut(&mut self) -> &mut StreamOptions {
        &mut self.google.base
    }

    /// See [`simple_options`].
    fn from_simple(model: &Model, options: SimpleStreamOptions) -> Self {
        simple_options(model, &options)
    }
}

/// pi's `streamSimpleGoogleVertex`: `maxTokens` as for Gemini; no level
/// means thinking disabled; Gemini 3 Pro / Flash get a `thinkingLevel`,
/// every other model a token budget.
pub fn simple_options(model: &Model, options: &SimpleStreamOptions) -> VertexOptions {
    let mut google = pi_providers_google::simple_options(model, options);
    google.thinking = Some(match options.reasoning {
        None => ThinkingSetting::OFF,
        Some(level) if uses_thinking_level(model) => ThinkingSetting {
            enabled: true,
            budget_tokens: None,
            level: Some(pi_providers_google::thinking_level(model, level)),
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
    });
    VertexOptions {
        google,
        project: None,
        location: None,
    }
}

/// The `thinkingConfig` Vertex sends: the Gemini API's, except that a
/// disabled Gemma 4 (not a Gemini 3 id) gets `thinkingBudget: 0`.
pub fn thinking_config(model: &Model, thinking: Option<ThinkingSetting>) -> Option<ThinkingConfig> {
    match thinking {
        Some(setting)
            if !setting.enabled
                && model.reasoning
                && is_gemma4(model)
                && !uses_thinking_level(model) =>
        {
            Some(ThinkingConfig {
                thinking_budget: Some(0),
                ..ThinkingConfig::default()
            })
        }
        other => pi_providers_google::thinking_config(model, other),
    }
}

/// Gemini 3 Pro and Flash take a level.
fn uses_thinking_level(model: &Model) -> bool {
    is_gemini3(model, "pro") || is_gemini3(model, "flash")
}

/// The budget for `level`: the caller's, else pi's Vertex tables (2.5 Pro;
/// 2.5 Flash, Flash-Lite included), else `-1`.
fn thinking_budget(model: &Model, level: ThinkingLevel, custom: Option<&ThinkingBudgets>) -> i64 {
    let has_custom = custom.is_some_and(|b| {
        match level {
            ThinkingLevel::Minimal => b.minimal,
            ThinkingLevel::Low => b.low,
            ThinkingLevel::Medium => b.medium,
            ThinkingLevel::High | ThinkingLevel::Xhigh => b.high,
        }
        .is_some()
    });
    if !has_custom && model.id.contains("2.5-flash-lite") {
        return match level {
            ThinkingLevel::Minimal => 128,
            ThinkingLevel::Low => 2048,
            ThinkingLevel::Medium => 8192,
            ThinkingLevel::High | ThinkingLevel::Xhigh => 24576,
        };
    }
    pi_providers_google::thinking_budget(model, level, custom)
}

#[cfg(test)]
#[path = "options_tests.rs"]
mod tests;
