//! The pure encoder: pi's `buildParams` of the Azure provider, on
//! openai-responses' message and tool conversion.

use pi_ai::{ContextRef, Model};
use pi_providers_openai_responses::{
    OpenAiResponsesOptions, convert_messages, convert_tools, reasoning_params,
};

use crate::options::AzureOpenAiResponsesOptions;
use crate::wire::RequestBody;

/// Providers whose `call|item` tool-call ids are rewritten to the Responses
/// id rules when replayed from another model (Azure adds itself to
/// openai-responses' list).
pub const AZURE_TOOL_CALL_PROVIDERS: [&str; 4] = [
    "openai",
    "openai-codex",
    "opencode",
    "azure-openai-responses",
];

/// Encodes the request body of one call. Pure: the deployment name is
/// `options.deployment_name` (resolved by `prepare`), else the model id.
///
/// Unlike openai-responses, pi sends `prompt_cache_key` whenever the call
/// has a session id, and no `store`, `prompt_cache_retention` or
/// `service_tier`; reasoning is the same (`{effort, summary}` plus
/// `include`, or the model's `off` effort).
pub fn build_request_body<'c>(
    model: &Model,
    context: impl Into<ContextRef<'c>>,
    options: &AzureOpenAiResponsesOptions,
) -> RequestBody<'c> {
    let context = context.into();
    let reasoning_only = OpenAiResponsesOptions {
        reasoning_effort: options.reasoning_effort,
        reasoning_summary: options.reasoning_summary,
        ..OpenAiResponsesOptions::default()
    };
    let (reasoning, include) = reasoning_params(model, &reasoning_only);
    RequestBody {
        model: options
            .deployment_name
            .clone()
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| model.id.clone()),
        input: convert_messages(model, context, &AZURE_TOOL_CALL_PROVIDERS, true),
        stream: true,
        prompt_cache_key: options.base.session_id.clone(),
        max_output_tokens: options.base.max_tokens.filter(|&n| n > 0),
        temperature: options.base.temperature,
        tools: context
            .tools
            .filter(|tools| !tools.is_empty())
            .map(convert_tools),
        reasoning,
        include,
    }
}
