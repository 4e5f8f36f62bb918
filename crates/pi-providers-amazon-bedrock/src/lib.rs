//! The `bedrock-converse-stream` wire: Amazon Bedrock's ConverseStream API as
//! pi 0.73.1 speaks it through the AWS SDK (`POST
//! {endpoint}/model/{modelId}/converse-stream`, a JSON body, SigV4 or a
//! Bedrock API key, an `application/vnd.amazon.eventstream` binary answer).
//!
//! Laid out as every wire crate: [`wire`] holds the typed request and event
//! JSON; `request` the pure encoder ([`build_request_body`]); `eventstream`
//! the binary framing ([`EventStreamFraming`], plugged into `pi-http`
//! through [`pi_http::Wire::framing`]); `decode` the pure stream decoder
//! ([`BedrockDecoder`]); `options` ([`BedrockOptions`]); `credentials`,
//! `endpoint` and `sigv4` the AWS side (credentials from the environment or
//! `~/.aws` profiles, region and endpoint, signing with `aws-sigv4`);
//! `provider` the [`pi_http::Wire`] impl ([`BedrockWire`]). [`register`]
//! adds it to the global api registry.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod credentials;
mod decode;
mod endpoint;
mod env;
mod eventstream;
mod models;
mod options;
mod provider;
mod request;
mod sigv4;
pub mod wire;

use pi_ai::Api;

pub use credentials::{Auth, AwsCredentials, CredentialsError, profile_region, resolve_auth};
pub use decode::{
    BedrockDecoder, NO_MESSAGE_STOP, UNKNOWN_ERROR, error_prefix, exception_message,
    http_error_message, map_stop_reason,
};
pub use endpoint::{
    RegionError, Target, configured_region, converse_stream_url, resolve_target,
    standard_endpoint_region,
};
pub use env::AwsEnvironment;
pub use eventstream::{
    ERROR_PREFIX, EXCEPTION_PREFIX, EventMessage, EventStreamFraming, HeaderValue, MAX_MESSAGE_LEN,
    decode_message, to_frame,
};
pub use models::{
    is_anthropic_claude, is_gov_cloud, supports_adaptive_thinking, supports_prompt_caching,
};
pub use options::{BedrockOptions, Resolved, ToolChoice, adjust_max_tokens_for_thinking};
pub use provider::{BedrockProvider, BedrockWire};
pub use request::{build_request_body, normalize_tool_call_id};
pub use sigv4::{BEDROCK_SERVICE, SignError, SigningScope, sign_request, sign_with_method};

/// The api this crate speaks.
pub const API: Api = Api::BEDROCK_CONVERSE_STREAM;

/// The registry source id of this crate's registration.
pub const SOURCE_ID: &str = "pi-providers-amazon-bedrock";

/// Registers [`BedrockProvider`] for `bedrock-converse-stream` in the global
/// api registry (source id [`SOURCE_ID`]).
pub fn register() {
    BedrockProvider::new().register(Api::BEDROCK_CONVERSE_STREAM, SOURCE_ID);
}
