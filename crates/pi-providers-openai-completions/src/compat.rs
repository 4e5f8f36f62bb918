//! Compatibility switches for OpenAI-compatible servers: what a model's
//! `compat` object may say, what is auto-detected from the provider and the
//! base URL, and the merge of the two (explicit values win).

use std::collections::BTreeMap;

use pi_ai::{Model, ThinkingLevel};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which request field carries the output token limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum MaxTokensField {
    /// `max_completion_tokens` (OpenAI's current name).
    #[default]
    #[serde(rename = "max_completion_tokens")]
    MaxCompletionTokens,
    /// `max_tokens` (older servers, chutes.ai).
    #[serde(rename = "max_tokens")]
    MaxTokens,
}

/// How the reasoning level is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThinkingFormat {
    /// `reasoning_effort: "<level>"` (OpenAI and most compatible servers).
    #[default]
    Openai,
    /// Top-level `enable_thinking: bool` (z.ai).
    Zai,
    /// Top-level `enable_thinking: bool` (Qwen on DashScope).
    Qwen,
    /// `chat_template_kwargs: {enable_thinking, preserve_thinking: true}` (vLLM/SGLang Qwen templates).
    QwenChatTemplate,
    /// `thinking: {type: "enabled"|"disabled"}` plus `reasoning_effort` (DeepSeek).
    Deepseek,
    /// `reasoning: {effort}` (OpenRouter's normalized reasoning object).
    Openrouter,
    /// A value this version does not know; treated as `openai`.
    #[serde(other)]
    Unknown,
}

/// Prompt-cache marker style for servers that accept Anthropic's `cache_control`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CacheControlFormat {
    /// `cache_control: {type: "ephemeral"}` on the system prompt, the last
    /// tool and the last user/assistant text part.
    Anthropic,
    /// A value this version does not know; no markers are sent.
    #[serde(other)]
    Unknown,
}

/// OpenRouter provider routing (`provider` in the request body). Only `only`
/// and `order` are named here; every other OpenRouter routing field is kept
/// verbatim and sent as given.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ProviderRouting {
    /// Upstream provider slugs to use exclusively.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<Vec<String>>,
    /// Upstream provider slugs to try in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<Vec<String>>,
    /// Other routing fields (fallbacks, sort, max_price, ...), sent unchanged.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

/// `model.compat` for the `openai-completions` wire, as written in pi's
/// `models.json` (camelCase keys, every field optional). An unset field
/// falls back to auto-detection (see [`ResolvedCompat::detect`]); unknown
/// keys are ignored.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenAiCompletionsCompat {
    /// Send `store: false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_store: Option<bool>,
    /// Use the `developer` role for the system prompt of reasoning models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_developer_role: Option<bool>,
    /// Send `reasoning_effort`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_reasoning_effort: Option<bool>,
    /// Per-level replacement of the `reasoning_effort` value, keyed by the
    /// level as pi writes it (`minimal` .. `xhigh`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort_map: Option<BTreeMap<String, String>>,
    /// Send `stream_options: {include_usage: true}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_usage_in_streaming: Option<bool>,
    /// Field carrying the output token limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens_field: Option<MaxTokensField>,
    /// Add `name` (the tool name) to `tool` messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_tool_result_name: Option<bool>,
    /// Insert an assistant message between tool results and a following user message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_assistant_after_tool_result: Option<bool>,
    /// Replay thinking as leading text parts instead of a reasoning field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_thinking_as_text: Option<bool>,
    /// Give every replayed assistant message a `reasoning_content` (empty when none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_reasoning_content_on_assistant_messages: Option<bool>,
    /// How the reasoning level is sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_format: Option<ThinkingFormat>,
    /// OpenRouter routing, sent as `provider` when the base URL is OpenRouter's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_router_routing: Option<ProviderRouting>,
    /// Vercel AI Gateway routing, sent as `providerOptions.gateway`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vercel_gateway_routing: Option<ProviderRouting>,
    /// Send `tool_stream: true` with tools (z.ai tool streaming).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zai_tool_stream: Option<bool>,
    /// Send `strict: false` in tool definitions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_strict_mode: Option<bool>,
    /// Anthropic-style prompt-cache markers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control_format: Option<CacheControlFormat>,
    /// Send `session_id`, `x-client-request-id` and `x-session-affinity` headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_session_affinity_headers: Option<bool>,
    /// Honour long cache retention (`prompt_cache_retention: "24h"`, `ttl: "1h"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_long_cache_retention: Option<bool>,
}

impl OpenAiCompletionsCompat {
    /// Reads `model.compat`. A value that does not parse (a wrong type in
    /// some field) is reported and ignored as a whole, as if it were absent.
    pub fn from_model(model: &Model) -> Self {
        match &model.compat {
            None | Some(Value::Null) => Self::default(),
            Some(value) => Self::deserialize(value).unwrap_or_else(|error| {
                tracing::warn!(model = %model.id, %error, "ignoring invalid openai-completions compat");
                Self::default()
            }),
        }
    }
}

/// Every switch with a value: explicit `compat` merged over auto-detection.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedCompat {
    /// See [`OpenAiCompletionsCompat::supports_store`].
    pub supports_store: bool,
    /// See [`OpenAiCompletionsCompat::supports_developer_role`].
    pub supports_developer_role: bool,
    /// See [`OpenAiCompletionsCompat::supports_reasoning_effort`].
    pub supports_reasoning_effort: bool,
    /// See [`OpenAiCompletionsCompat::reasoning_effort_map`].
    pub reasoning_effort_map: BTreeMap<String, String>,
    /// See [`OpenAiCompletionsCompat::supports_usage_in_streaming`].
    pub supports_usage_in_streaming: bool,
    /// See [`OpenAiCompletionsCompat::max_tokens_field`].
    pub max_tokens_field: MaxTokensField,
    /// See [`OpenAiCompletionsCompat::requires_tool_result_name`].
    pub requires_tool_result_name: bool,
    /// See [`OpenAiCompletionsCompat::requires_assistant_after_tool_result`].
    pub requires_assistant_after_tool_result: bool,
    /// See [`OpenAiCompletionsCompat::requires_thinking_as_text`].
    pub requires_thinking_as_text: bool,
    /// See [`OpenAiCompletionsCompat::requires_reasoning_content_on_assistant_messages`].
    pub requires_reasoning_content_on_assistant_messages: bool,
    /// See [`OpenAiCompletionsCompat::thinking_format`].
    pub thinking_format: ThinkingFormat,
    /// See [`OpenAiCompletionsCompat::open_router_routing`] (never auto-detected).
    pub open_router_routing: Option<ProviderRouting>,
    /// See [`OpenAiCompletionsCompat::vercel_gateway_routing`] (never auto-detected).
    pub vercel_gateway_routing: Option<ProviderRouting>,
    /// See [`OpenAiCompletionsCompat::zai_tool_stream`].
    pub zai_tool_stream: bool,
    /// See [`OpenAiCompletionsCompat::supports_strict_mode`].
    pub supports_strict_mode: bool,
    /// See [`OpenAiCompletionsCompat::cache_control_format`].
    pub cache_control_format: Option<CacheControlFormat>,
    /// See [`OpenAiCompletionsCompat::send_session_affinity_headers`].
    pub send_session_affinity_headers: bool,
    /// See [`OpenAiCompletionsCompat::supports_long_cache_retention`].
    pub supports_long_cache_retention: bool,
}

/// Every reasoning level, for maps that apply to all of them.
const ALL_LEVELS: [ThinkingLevel; 5] = [
    ThinkingLevel::Minimal,
    ThinkingLevel::Low,
    ThinkingLevel::Medium,
    ThinkingLevel::High,
    ThinkingLevel::Xhigh,
];

impl ResolvedCompat {
    /// The switches pi derives from the provider name and the base URL
    /// (pi's `detectCompat`); the provider name wins where both could apply.
    pub fn detect(model: &Model) -> Self {
        let provider = model.provider.as_str();
        let url = model.base_url.as_str();
        let is_zai = provider == "zai" || url.contains("api.z.ai");
        let is_grok = provider == "xai" || url.contains("api.x.ai");
        let is_groq = provider == "groq" || url.contains("groq.com");
        let is_deepseek = provider == "deepseek" || url.contains("deepseek.com");
        let is_workers_ai =
            provider == "cloudflare-workers-ai" || url.contains("api.cloudflare.com");
        let is_ai_gateway =
            provider == "cloudflare-ai-gateway" || url.contains("gateway.ai.cloudflare.com");
        let non_standard = is_workers_ai
            || is_ai_gateway
            || provider == "cerebras"
            || url.contains("cerebras.ai")
            || is_grok
            || url.contains("chutes.ai")
            || url.contains("deepseek.com")
            || is_zai
            || provider == "opencode"
            || url.contains("opencode.ai");
        let reasoning_effort_map = if is_groq && model.id == "qwen/qwen3-32b" {
            ALL_LEVELS
                .iter()
                .map(|level| (level.as_str().to_owned(), "default".to_owned()))
                .collect()
        } else {
            BTreeMap::new()
        };
        let thinking_format = if is_deepseek {
            ThinkingFormat::Deepseek
        } else if is_zai {
            ThinkingFormat::Zai
        } else {
            ThinkingFormat::Openai
        };
        let anthropic_via_openrouter =
            provider == "openrouter" && model.id.starts_with("anthropic/");
        Self {
            supports_store: !non_standard,
            supports_developer_role: !non_standard,
            supports_reasoning_effort: !is_grok && !is_zai && !is_ai_gateway,
            reasoning_effort_map,
            supports_usage_in_streaming: true,
            max_tokens_field: if url.contains("chutes.ai") || is_ai_gateway {
                MaxTokensField::MaxTokens
            } else {
                MaxTokensField::MaxCompletionTokens
            },
            requires_tool_result_name: false,
            requires_assistant_after_tool_result: false,
            requires_thinking_as_text: false,
            requires_reasoning_content_on_assistant_messages: is_deepseek,
            thinking_format,
            open_router_routing: None,
            vercel_gateway_routing: None,
            zai_tool_stream: false,
            supports_strict_mode: !is_ai_gateway,
            cache_control_format: anthropic_via_openrouter.then_some(CacheControlFormat::Anthropic),
            send_session_affinity_headers: false,
            supports_long_cache_retention: !(is_workers_ai || is_ai_gateway),
        }
    }

    /// The switches for `model`: its `compat` merged over [`Self::detect`].
    pub fn for_model(model: &Model) -> Self {
        Self::merge(
            OpenAiCompletionsCompat::from_model(model),
            Self::detect(model),
        )
    }

    /// `explicit` over `detected`, field by field.
    pub fn merge(explicit: OpenAiCompletionsCompat, detected: Self) -> Self {
        let OpenAiCompletionsCompat {
            supports_store,
            supports_developer_role,
            supports_reasoning_effort,
            reasoning_effort_map,
            supports_usage_in_streaming,
            max_tokens_field,
            requires_tool_result_name,
            requires_assistant_after_tool_result,
            requires_thinking_as_text,
            requires_reasoning_content_on_assistant_messages,
            thinking_format,
            open_router_routing,
            vercel_gateway_routing,
            zai_tool_stream,
            supports_strict_mode,
            cache_control_format,
            send_session_affinity_headers,
            supports_long_cache_retention,
        } = explicit;
        Self {
            supports_store: supports_store.unwrap_or(detected.supports_store),
            supports_developer_role: supports_developer_role
                .unwrap_or(detected.supports_developer_role),
            supports_reasoning_effort: supports_reasoning_effort
                .unwrap_or(detected.supports_reasoning_effort),
            reasoning_effort_map: reasoning_effort_map.unwrap_or(detected.reasoning_effort_map),
            supports_usage_in_streaming: supports_usage_in_streaming
                .unwrap_or(detected.supports_usage_in_streaming),
            max_tokens_field: max_tokens_field.unwrap_or(detected.max_tokens_field),
            requires_tool_result_name: requires_tool_result_name
                .unwrap_or(detected.requires_tool_result_name),
            requires_assistant_after_tool_result: requires_assistant_after_tool_result
                .unwrap_or(detected.requires_assistant_after_tool_result),
            requires_thinking_as_text: requires_thinking_as_text
                .unwrap_or(detected.requires_thinking_as_text),
            requires_reasoning_content_on_assistant_messages:
                requires_reasoning_content_on_assistant_messages
                    .unwrap_or(detected.requires_reasoning_content_on_assistant_messages),
            thinking_format: thinking_format.unwrap_or(detected.thinking_format),
            open_router_routing: open_router_routing.or(detected.open_router_routing),
            vercel_gateway_routing: vercel_gateway_routing.or(detected.vercel_gateway_routing),
            zai_tool_stream: zai_tool_stream.unwrap_or(detected.zai_tool_stream),
            supports_strict_mode: supports_strict_mode.unwrap_or(detected.supports_strict_mode),
            cache_control_format: cache_control_format.or(detected.cache_control_format),
            send_session_affinity_headers: send_session_affinity_headers
                .unwrap_or(detected.send_session_affinity_headers),
            supports_long_cache_retention: supports_long_cache_retention
                .unwrap_or(detected.supports_long_cache_retention),
        }
    }
}

#[cfg(test)]
#[path = "compat_tests.rs"]
mod tests;
