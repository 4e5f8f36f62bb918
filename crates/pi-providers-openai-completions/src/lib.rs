//! The `openai-completions` wire: OpenAI Chat Completions
//! (`POST {baseUrl}/chat/completions`, streamed) and the many servers that
//! speak it (Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, Groq, Cerebras,
//! xAI, z.ai, DeepSeek, Mistral's compatible endpoint, ...).
//!
//! Layout: [`wire`] holds the typed request and chunk JSON, [`request`] the
//! pure encoder, [`decode`] the pure stream decoder, [`compat`] the
//! per-server switches, `provider` the HTTP glue over `pi-http`.
//!
//! # Compatible servers
//! Servers differ in small ways. Each difference is a switch in the model's
//! `compat` object ([`OpenAICompletionsCompat`], camelCase as in pi's
//! `models.json`); an unset switch is auto-detected from the provider name
//! and the base URL ([`ResolvedCompat::detect`]):
//!
//! | switch | auto-detected |
//! |---|---|
//! | `supportsStore`, `supportsDeveloperRole` | false for cerebras, xAI (`api.x.ai`), chutes.ai, deepseek.com, z.ai (`api.z.ai`), opencode |
//! | `supportsReasoningEffort` | false for xAI and z.ai |
//! | `reasoningEffortMap` | groq `qwen/qwen3-32b`: every level -> `default` |
//! | `maxTokensField` | `max_tokens` for chutes.ai, else `max_completion_tokens` |
//! | `thinkingFormat` | `deepseek` for DeepSeek, `zai` for z.ai, else `openai` |
//! | `requiresReasoningContentOnAssistantMessages` | true for DeepSeek |
//! | `cacheControlFormat` | `anthropic` for OpenRouter `anthropic/*` models |
//! | `supportsUsageInStreaming`, `supportsStrictMode`, `supportsLongCacheRetention` | true |
//! | `requiresToolResultName`, `requiresAssistantAfterToolResult`, `requiresThinkingAsText`, `zaiToolStream`, `sendSessionAffinityHeaders` | false |
//! | `openRouterRouting`, `vercelGatewayRouting` | never (only from `compat`, only sent to openrouter.ai / ai-gateway.vercel.sh) |
//!
//! Ollama, vLLM, llama.cpp, LM Studio and Mistral need no detection: the
//! defaults fit them, and anything else comes from `compat`.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod compat;
pub mod decode;
mod provider;
pub mod request;
pub mod wire;

use std::sync::Arc;

use pi_ai::{
    Api, AssistantMessageEventStream, Context, Model, SimpleStreamOptions, StreamFunction,
    StreamOptions, register_api_provider,
};

pub use compat::{OpenAICompletionsCompat, ResolvedCompat};
pub use decode::{CompletionsDecoder, replay_frames};
pub use provider::{endpoint_url, request_headers, resolve_api_key, stream_completions};
pub use request::{OpenAICompletionsOptions, build_request, build_request_body};
pub use wire::ToolChoice;

/// The registry source id of this crate's registration.
pub const SOURCE_ID: &str = "pi-providers-openai-completions";

/// The `openai-completions` stream function.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenAICompletionsProvider;

impl StreamFunction for OpenAICompletionsProvider {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        stream_completions(
            model,
            context,
            OpenAICompletionsOptions {
                base: options,
                ..OpenAICompletionsOptions::default()
            },
        )
    }

    /// Maps the unified reasoning level to `reasoning_effort` (or the
    /// server's thinking switch), `xhigh` clamped to `high` where the model
    /// lacks it, and defaults max tokens to `min(model.maxTokens, 32000)`.
    fn stream_simple(
        &self,
        model: &Model,
        context: &Context,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        stream_completions(
            model,
            context,
            OpenAICompletionsOptions::from_simple(model, &options),
        )
    }
}

/// Registers [`OpenAICompletionsProvider`] for `openai-completions` in the
/// global api registry (source id [`SOURCE_ID`]).
pub fn register() {
    register_api_provider(
        Api::OPENAI_COMPLETIONS,
        Arc::new(OpenAICompletionsProvider),
        SOURCE_ID,
    );
}
