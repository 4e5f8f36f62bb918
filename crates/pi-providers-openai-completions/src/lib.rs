//! The `openai-completions` wire: OpenAI Chat Completions
//! (`POST {baseUrl}/chat/completions`, streamed) and the many servers that
//! speak it (Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, Groq, Cerebras,
//! xAI, z.ai, DeepSeek, Mistral's compatible endpoint, ...).
//!
//! Laid out as every wire crate: [`wire`] holds the typed request and chunk
//! JSON; `request` the pure encoder ([`build_request_body`]); `decode` the
//! pure stream decoder ([`OpenAiCompletionsDecoder`]); `options`
//! ([`OpenAiCompletionsOptions`]); `compat` the per-server switches;
//! `provider` the [`pi_http::Wire`] impl ([`OpenAiCompletionsWire`]: URL,
//! headers, decoder). Call it with [`OpenAiCompletionsProvider`]
//! (`stream_with` for the full options, or as a [`pi_ai::StreamFunction`]);
//! [`register`] adds it to the global api registry.
//!
//! # Compatible servers
//! Servers differ in small ways. Each difference is a switch in the model's
//! `compat` object ([`OpenAiCompletionsCompat`], camelCase as in pi's
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

mod compat;
mod decode;
mod fast_chunk;
mod messages;
mod options;
mod provider;
mod request;
pub mod wire;

use pi_ai::Api;

pub use compat::{OpenAiCompletionsCompat, ResolvedCompat};
pub use decode::OpenAiCompletionsDecoder;
pub use messages::ChatMessages;
pub use options::OpenAiCompletionsOptions;
pub use provider::{OpenAiCompletionsProvider, OpenAiCompletionsWire};
pub use request::build_request_body;
pub use wire::ToolChoice;

/// The registry source id of this crate's registration.
pub const SOURCE_ID: &str = "pi-providers-openai-completions";

/// Registers [`OpenAiCompletionsProvider`] for `openai-completions` in the
/// global api registry (source id [`SOURCE_ID`]).
pub fn register() {
    OpenAiCompletionsProvider::new().register(Api::OPENAI_COMPLETIONS, SOURCE_ID);
}
