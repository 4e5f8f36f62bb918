//! The pure encoder: pi's `buildRequestBody` of the Codex provider, on
//! openai-responses' message conversion.

use pi_ai::{ContextRef, Model, Tool};
use pi_providers_openai_responses::{
    LevelMapping, OPENAI_TOOL_CALL_PROVIDERS, ReasoningSummary, convert_messages, level_mapping,
};

use crate::options::OpenAiCodexOptions;
use crate::wire::{CodexTool, Reasoning, RequestBody, TextOptions};

/// The instructions pi sends when the context has no system prompt.
pub const DEFAULT_INSTRUCTIONS: &str = "You are a helpful assistant.";

/// Encodes the request body of one call.
///
/// - `instructions` is the system prompt (or [`DEFAULT_INSTRUCTIONS`]);
///   `input` the transcript without it.
/// - `store: false`, `include: ["reasoning.encrypted_content"]`,
///   `tool_choice: "auto"`, `parallel_tool_calls: true` always; no output
///   token limit.
/// - `prompt_cache_key` is the session id whatever the cache retention.
/// - `reasoning` only when an effort is asked for: the model's
///   `thinkingLevelMap` value for it (or the level itself), summary `auto`
///   unless set.
pub fn build_request_body<'c>(
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: &OpenAiCodexOptions,
) -> RequestBody<'c> {
    let context = context.into();
    RequestBody {
        model: model.id.clone(),
        store: false,
        stream: true,
        instructions: context
            .system_prompt
            .filter(|prompt| !prompt.is_empty())
            .unwrap_or(DEFAULT_INSTRUCTIONS)
            .to_owned(),
        input: convert_messages(model, context, &OPENAI_TOOL_CALL_PROVIDERS, false),
        text: TextOptions {
            verbosity: options
                .text_verbosity
                .clone()
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| "low".to_owned()),
        },
        include: vec!["reasoning.encrypted_content".to_owned()],
        prompt_cache_key: options.base.session_id.clone(),
        tool_choice: "auto",
        parallel_tool_calls: true,
        temperature: options.base.temperature,
        service_tier: options.service_tier.clone(),
        tools: context
            .tools
            .filter(|tools| !tools.is_empty())
            .map(convert_tools),
        reasoning: options.reasoning_effort.map(|level| {
            // `map[level] ?? level`: a `null` entry falls back to the level.
            let effort = match level_mapping(model, level.as_str()) {
                LevelMapping::Value(mapped) => mapped.to_owned(),
                LevelMapping::Default | LevelMapping::Unsupported => level.as_str().to_owned(),
            };
            Reasoning {
                effort,
                summary: Some(
                    options
                        .reasoning_summary
                        .map_or("auto", ReasoningSummary::as_str)
                        .to_owned(),
                ),
            }
        }),
    }
}

/// Tools as `{type:"function", name, description, parameters, strict:null}`.
fn convert_tools(tools: &[Tool]) -> Vec<CodexTool> {
    tools
        .iter()
        .map(|tool| CodexTool {
            name: tool.name.clone(),
            description: tool.description.clone(),
            parameters: tool.parameters.clone(),
            strict: None,
        })
        .collect()
}
