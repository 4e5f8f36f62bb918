//! The `openai-responses` wire over `pi-http`: URL, headers and decoder of
//! one call ([`OpenAiResponsesWire`]), run by [`pi_http::stream_wire`].

use pi_ai::{ContextRef, Model};
use pi_http::{Headers, Wire, WireError, WireHeaders, WireProvider, set_copilot_dynamic_headers};

use crate::decode::OpenAiResponsesDecoder;
use crate::options::{OpenAiResponsesOptions, compat_flag};
use crate::request::build_request_body;
use crate::wire::RequestBody;

/// The OpenAI SDK's base URL, used when a model has none.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// The `openai-responses` wire (pi's `streamOpenAIResponses`).
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenAiResponsesWire;

/// The `openai-responses` stream function: [`OpenAiResponsesWire`] over `pi-http`.
pub type OpenAiResponsesProvider = WireProvider<OpenAiResponsesWire>;

impl Wire for OpenAiResponsesWire {
    type Options = OpenAiResponsesOptions;
    type Body<'a> = RequestBody<'a>;
    type Decoder = OpenAiResponsesDecoder;

    /// Resolves the cache retention (`PI_CACHE_RETENTION=long` when unset).
    fn resolve(
        &self,
        _model: &Model,
        options: &mut OpenAiResponsesOptions,
    ) -> Result<Self, WireError> {
        let env_long = std::env::var("PI_CACHE_RETENTION").is_ok_and(|v| v == "long");
        options.base.cache_retention = Some(options.resolved_cache_retention(env_long));
        Ok(*self)
    }

    /// `{baseUrl}/responses` (one trailing slash of the base is dropped).
    fn url(&self, model: &Model) -> String {
        let base = if model.base_url.is_empty() {
            DEFAULT_BASE_URL
        } else {
            model.base_url.as_str()
        };
        let base = base.strip_suffix('/').unwrap_or(base);
        format!("{base}/responses")
    }

    /// In the order the OpenAI SDK merges them: `accept` and
    /// `authorization`; after the model's headers, `session_id` (unless the
    /// model's `compat.sendSessionIdHeader` is false) and
    /// `x-client-request-id` carrying the cache session id; after the
    /// call's headers, `content-type`.
    fn headers(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: &OpenAiResponsesOptions,
        api_key: &str,
    ) -> WireHeaders {
        let mut base = Headers::new();
        base.set("accept", "application/json");
        base.set("authorization", &format!("Bearer {api_key}"));
        let mut after_model = Headers::new();
        set_copilot_dynamic_headers(&mut after_model, model, context);
        if let Some(session_id) = options.cache_session_id() {
            if compat_flag(model, "sendSessionIdHeader", true) {
                after_model.set("session_id", session_id);
            }
            after_model.set("x-client-request-id", session_id);
        }
        let mut fixed = Headers::new();
        fixed.set("content-type", "application/json");
        WireHeaders {
            base,
            after_model,
            fixed,
        }
    }

    fn body<'a>(
        &self,
        model: &'a Model,
        context: ContextRef<'a>,
        options: &'a OpenAiResponsesOptions,
    ) -> RequestBody<'a> {
        build_request_body(model, context, options)
    }

    /// The requested service tier prices a response that names none.
    fn decoder(
        &self,
        model: &Model,
        _context: ContextRef<'_>,
        options: &OpenAiResponsesOptions,
        _api_key: &str,
    ) -> OpenAiResponsesDecoder {
        OpenAiResponsesDecoder::new(model.clone(), options.service_tier.clone())
    }
}
