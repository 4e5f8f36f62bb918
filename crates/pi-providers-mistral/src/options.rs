//! Options of the `mistral-conversations` wire and the mapping from pi's
//! unified reasoning level (prompt mode or reasoning effort, by model).

use pi_ai::{Model, SimpleStreamOptions, StreamOptions, ThinkingLevel, supports_xhigh};
use pi_http::WireOptions;

use crate::wire::ToolChoice;

/// How a reasoning model is asked to think.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptMode {
    /// `prompt_mode: "reasoning"` (Magistral and other reasoning models).
    Reasoning,
}

/// Options of one call (pi's `MistralOptions`).
#[derive(Debug, Clone, Default)]
pub struct MistralOptions {
    /// Common options (max tokens, temperature, key, headers, session, ...).
    pub base: StreamOptions,
    /// `tool_choice`.
    pub tool_choice: Option<ToolChoice>,
    /// `prompt_mode`.
    pub prompt_mode: Option<PromptMode>,
    /// `reasoning_effort`, as sent.
    pub reasoning_effort: Option<String>,
}

/// Models that take `reasoning_effort` instead of a prompt mode.
fn uses_reasoning_effort(model: &Model) -> bool {
    matches!(
        model.id.as_str(),
        "mistral-small-2603" | "mistral-small-latest" | "mistral-medium-3.5"
    )
}

fn level_name(level: ThinkingLevel) -> String {
    serde_json::to_value(level)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

impl MistralOptions {
    /// What pi's `streamSimpleMistral` passes on: max tokens defaulted to
    /// `min(model.maxTokens, 32000)`; for a reasoning model asked to think,
    /// `prompt_mode: reasoning`, or for the effort models the level mapped
    /// through the model's `thinkingLevelMap` (default `high`).
    pub fn from_simple(model: &Model, options: &SimpleStreamOptions) -> Self {
        let mut base = options.base.clone();
        base.max_tokens = Some(options.max_tokens_for(model));
        let level = options.reasoning.map(|level| match level {
            ThinkingLevel::Xhigh if !supports_xhigh(model) => ThinkingLevel::High,
            other => other,
        });
        let mut out = Self {
            base,
            ..Self::default()
        };
        if let Some(level) = level.filter(|_| model.reasoning) {
            if uses_reasoning_effort(model) {
                let mapped = model
                    .extra
                    .get("thinkingLevelMap")
                    .and_then(|map| map.get(level_name(level).as_str()))
                    .and_then(|v| v.as_str())
                    .unwrap_or("high");
                out.reasoning_effort = Some(mapped.to_owned());
            } else {
                out.prompt_mode = Some(PromptMode::Reasoning);
            }
        }
        out
    }
}

impl WireOptions for MistralOptions {
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

    /// See [`MistralOptions::from_simple`].
    fn from_simple(model: &Model, options: SimpleStreamOptions) -> Self {
        Self::from_simple(model, &options)
    }
}
