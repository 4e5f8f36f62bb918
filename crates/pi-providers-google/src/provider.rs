//! The `google-generative-ai` wire over `pi-http`: URL, headers and decoder
//! of one call ([`GoogleWire`]), run by [`pi_http::stream_wire`].

use pi_ai::{ContextRef, Model};
use pi_http::{Headers, RetryPolicy, Wire, WireHeaders, WireProvider};

use crate::decode::GoogleDecoder;
use crate::options::GoogleOptions;
use crate::request::build_request_body;
use crate::wire::GenerateContentRequest;

/// The Gemini API root used when a model has no base URL.
pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";

/// The header that carries the API key.
pub const API_KEY_HEADER: &str = "x-goog-api-key";

/// The `google-generative-ai` wire (pi's `streamGoogle`).
#[derive(Debug, Clone, Copy, Default)]
pub struct GoogleWire;

/// The `google-generative-ai` stream function: [`GoogleWire`] over `pi-http`.
pub type GoogleProvider = WireProvider<GoogleWire>;

impl Wire for GoogleWire {
    type Options = GoogleOptions;
    type Body<'a> = GenerateContentRequest<'a>;
    type Decoder = GoogleDecoder;

    /// `{baseUrl}/models/{model}:streamGenerateContent?alt=sse` (the base
    /// URL already holds the API version, e.g. `.../v1beta`).
    fn url(&self, model: &Model) -> String {
        let base = model.base_url.trim_end_matches('/');
        let base = if base.is_empty() {
            DEFAULT_BASE_URL
        } else {
            base
        };
        format!("{base}/models/{}:streamGenerateContent?alt=sse", model.id)
    }

    /// `content-type` and the key in `x-goog-api-key`.
    fn headers(
        &self,
        _model: &Model,
        _context: ContextRef<'_>,
        _options: &GoogleOptions,
        api_key: &str,
    ) -> WireHeaders {
        let mut base = Headers::new();
        base.set("content-type", "application/json");
        base.set(API_KEY_HEADER, api_key);
        WireHeaders {
            base,
            ..WireHeaders::default()
        }
    }

    fn body<'a>(
        &self,
        model: &'a Model,
        context: ContextRef<'a>,
        options: &'a GoogleOptions,
    ) -> GenerateContentRequest<'a> {
        build_request_body(model, context, options)
    }

    fn decoder(
        &self,
        model: &Model,
        _context: ContextRef<'_>,
        _options: &GoogleOptions,
        _api_key: &str,
    ) -> GoogleDecoder {
        GoogleDecoder::new(model)
    }

    /// None: pi's Google client is created without retry options, so a
    /// failed request is not sent again by the transport (the app's
    /// auto-retry still applies).
    fn retry_policy(&self, _options: &GoogleOptions) -> RetryPolicy {
        RetryPolicy::NONE
    }
}
