//! The `google-generative-ai` wire: Gemini `streamGenerateContent` requests
//! and SSE decoding, as pi 0.73.1 speaks it.
//!
//! Laid out as every wire crate: [`wire`] holds the typed JSON; `request`
//! the pure encoder ([`build_request_body`]: `contents` of `user`/`model`
//! turns, `systemInstruction`, `tools`, `toolConfig`, `generationConfig`
//! with `thinkingConfig`); `decode` the pure SSE decoder ([`GoogleDecoder`]);
//! `options` ([`GoogleOptions`], the reasoning mapping); `provider` the
//! [`pi_http::Wire`] impl ([`GoogleWire`]: URL, `x-goog-api-key` header,
//! decoder). Call it with [`GoogleProvider`] (`stream_with` for the full
//! options, or as a [`pi_ai::StreamFunction`]); [`register`] adds it to the
//! global api registry under `google-generative-ai`.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod decode;
mod fast_chunk;
mod options;
mod provider;
mod request;
pub mod wire;

use pi_ai::Api;

pub use decode::{GoogleDecoder, NO_FINISH_REASON};
pub use options::{
    GoogleOptions, ThinkingSetting, is_gemini3, is_gemma4, simple_options, thinking_budget,
    thinking_config, thinking_level,
};
pub use provider::{API_KEY_HEADER, DEFAULT_BASE_URL, GoogleProvider, GoogleWire};
pub use request::{SKIP_THOUGHT_SIGNATURE, build_request_body, convert_messages};

/// The source id of this crate's registration.
pub const SOURCE_ID: &str = "pi-providers-google";

/// Registers [`GoogleProvider`] for `google-generative-ai` in the global
/// registry, with source id [`SOURCE_ID`].
pub fn register() {
    GoogleProvider::new().register(Api::GOOGLE_GENERATIVE_AI, SOURCE_ID);
}
