//! The `azure-openai-responses` wire: the OpenAI Responses API on Azure
//! OpenAI as pi 0.73.1 speaks it through the `AzureOpenAI` client
//! (`POST {base}/responses?api-version={version}`, `api-key` header).
//!
//! Laid out as every wire crate: [`wire`] holds the typed request body (its
//! input items, tools and stream events are openai-responses' own); `config`
//! resolves the deployment URL, api version and deployment name from the
//! options, the Azure environment variables and the model ([`AzureConfig`]);
//! `request` the pure encoder ([`build_request_body`], on openai-responses'
//! message conversion); `decode` the stream decoder ([`AzureOpenAiResponsesDecoder`],
//! openai-responses' decoder without service-tier pricing); `options`
//! ([`AzureOpenAiResponsesOptions`]); `provider` the [`pi_http::Wire`] impl
//! ([`AzureOpenAiResponsesWire`], whose `resolve` finds each call's
//! endpoint) and [`AzureOpenAiResponsesProvider`], the wire over `pi-http`.
//! [`register`] adds it to the global api registry.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod config;
mod decode;
mod options;
mod provider;
mod request;
pub mod wire;

use pi_ai::Api;

pub use config::{
    AzureConfig, AzureConfigError, AzureEnv, DEFAULT_API_VERSION, normalize_base_url,
    parse_deployment_name_map,
};
pub use decode::AzureOpenAiResponsesDecoder;
pub use options::AzureOpenAiResponsesOptions;
pub use provider::{AzureOpenAiResponsesProvider, AzureOpenAiResponsesWire};
pub use request::{AZURE_TOOL_CALL_PROVIDERS, build_request_body};

/// The registry source id of this crate's registration.
pub const SOURCE_ID: &str = "pi-providers-azure-openai-responses";

/// Registers [`AzureOpenAiResponsesProvider`] for `azure-openai-responses`
/// in the global api registry (source id [`SOURCE_ID`]).
pub fn register() {
    AzureOpenAiResponsesProvider::new().register(Api::AZURE_OPENAI_RESPONSES, SOURCE_ID);
}
