//! The `google-generative-ai` wire: Gemini `streamGenerateContent` requests
//! and SSE decoding, as pi 0.73.1 speaks it.
//!
//! - [`build_request_body`] (pure): a `pi_ai::Context` to the request body:
//!   `contents` of `user`/`model` turns, `systemInstruction`, `tools` with
//!   `parametersJsonSchema`, `toolConfig`, `generationConfig` with
//!   `thinkingConfig`.
//! - [`GoogleDecoder`] (pure): SSE chunks to `pi_ai` events, usage and
//!   stop reason.
//! - [`stream_google`]: the HTTP call through `pi_http`, authenticated with
//!   `x-goog-api-key`.
//! - [`GoogleProvider`] implements [`pi_ai::StreamFunction`]; [`register`]
//!   puts it in the global registry under `google-generative-ai`.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod decode;
mod options;
mod provider;
mod request;
pub mod wire;

use std::sync::Arc;

use pi_ai::{
    Api, AssistantMessageEventStream, Context, Model, SimpleStreamOptions, StreamFunction,
    StreamOptions, register_api_provider,
};

pub use decode::GoogleDecoder;
pub use options::{GoogleOptions, ThinkingSetting, simple_options, thinking_config};
pub use provider::{
    API_KEY_HEADER, DEFAULT_BASE_URL, build_http_request, endpoint_url, resolve_api_key,
    stream_google,
};
pub use request::{SKIP_THOUGHT_SIGNATURE, build_request_body, convert_messages};

/// The source id of this crate's registration.
pub const SOURCE_ID: &str = "pi-providers-google";

/// The `google-generative-ai` stream function.
#[derive(Debug, Clone, Copy, Default)]
pub struct GoogleProvider;

impl StreamFunction for GoogleProvider {
    /// Streams with provider-level options only: no tool choice, no `thinkingConfig`.
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        let options = GoogleOptions {
            base: options,
            ..GoogleOptions::default()
        };
        stream_google(model, context, options)
    }

    /// Streams with pi's unified reasoning level mapped by [`simple_options`].
    fn stream_simple(
        &self,
        model: &Model,
        context: &Context,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        stream_google(model, context, simple_options(model, &options))
    }
}

/// Registers [`GoogleProvider`] for `google-generative-ai` in the global
/// registry, with source id [`SOURCE_ID`].
pub fn register() {
    register_api_provider(
        Api::GOOGLE_GENERATIVE_AI,
        Arc::new(GoogleProvider),
        SOURCE_ID,
    );
}
