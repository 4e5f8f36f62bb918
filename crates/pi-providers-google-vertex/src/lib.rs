//! The `google-vertex` wire: Gemini models on Vertex AI as pi 0.73.1 calls
//! them through the Google Gen AI SDK (`streamGenerateContent?alt=sse` under
//! `v1`), authorized by an API key (`x-goog-api-key`) or by Application
//! Default Credentials (a service-account JWT or a gcloud refresh token
//! exchanged for a cached OAuth access token).
//!
//! Laid out as every wire crate: [`wire`] is the Gemini JSON (shared with
//! `pi-providers-google`); `request` the pure encoder ([`build_request_body`],
//! Gemini's body with Vertex's thinking rules); `decode` the stream decoder
//! ([`VertexDecoder`], Gemini's); `options` ([`VertexOptions`]); `provider`
//! the [`pi_http::Wire`] impl ([`VertexWire`], which picks the auth mode and
//! fetches the token) and [`VertexProvider`], the wire over `pi-http`. Vertex's own parts: `endpoint`
//! (hosts and paths), `env`, `credentials` (finding and reading the ADC
//! file) and `token` (JWT signing, the token exchange and its cache).

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod credentials;
mod decode;
mod endpoint;
mod env;
mod error;
mod options;
mod provider;
mod request;
mod token;

use pi_ai::Api;
pub use pi_providers_google::wire;

pub use credentials::{
    AuthorizedUser, Credentials, GOOGLE_TOKEN_URL, ServiceAccount, find_credentials,
    parse_credentials, well_known_file,
};
pub use decode::VertexDecoder;
pub use endpoint::{API_VERSION, GLOBAL_ROOT, Target, custom_base_url, stream_url};
pub use env::VertexEnv;
pub use error::VertexError;
pub use options::{VertexOptions, simple_options, thinking_config};
pub use provider::{API_KEY_HEADER, CREDENTIALS_MARKER, VertexProvider, VertexWire};
pub use request::build_request_body;
pub use token::{
    CLOUD_PLATFORM_SCOPE, EAGER_REFRESH, JWT_BEARER_GRANT, JwtClaims, TokenCache, sign_jwt,
};

/// The registry source id of this crate's registration.
pub const SOURCE_ID: &str = "pi-providers-google-vertex";

/// Registers [`VertexProvider`] (process environment, process-wide token
/// cache) for `google-vertex` in the global api registry.
pub fn register() {
    VertexProvider::new().register(Api::GOOGLE_VERTEX, SOURCE_ID);
}
