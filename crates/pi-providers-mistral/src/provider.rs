//! The `mistral-conversations` wire over `pi-http`: URL, headers, decoder
//! and retry policy of one call ([`MistralWire`]), run by [`pi_http::stream_wire`].

use pi_ai::{ContextRef, Model};
use pi_http::{Headers, RetryPolicy, Wire, WireHeaders, WireProvider};

use crate::decode::MistralDecoder;
use crate::options::MistralOptions;
use crate::request::build_request_body;
use crate::wire::ChatRequest;

/// The `mistral-conversations` wire (pi's `streamMistral`).
#[derive(Debug, Clone, Copy, Default)]
pub struct MistralWire;

/// The `mistral-conversations` stream function: [`MistralWire`] over `pi-http`.
pub type MistralProvider = WireProvider<MistralWire>;

impl Wire for MistralWire {
    type Options = MistralOptions;
    type Body<'a> = ChatRequest<'a>;
    type Decoder = MistralDecoder;

    /// `{baseUrl}/v1/chat/completions` (the SDK's server URL plus its path).
    fn url(&self, model: &Model) -> String {
        format!(
            "{}/v1/chat/completions",
            model.base_url.trim_end_matches('/')
        )
    }

    /// JSON content type, `accept: text/event-stream` and `Authorization:
    /// Bearer`; after the model's and the call's headers, `x-affinity` (the
    /// session id, for Mistral's prefix cache) unless one was given.
    fn headers(
        &self,
        model: &Model,
        _context: ContextRef<'_>,
        options: &MistralOptions,
        api_key: &str,
    ) -> WireHeaders {
        let mut base = Headers::new();
        base.set("content-type", "application/json");
        base.set("accept", "text/event-stream");
        base.set("authorization", &format!("Bearer {api_key}"));
        let given = |headers: Option<&std::collections::BTreeMap<String, String>>| {
            headers.is_some_and(|h| h.keys().any(|k| k == "x-affinity"))
        };
        let mut fixed = Headers::new();
        if let Some(session) = options.base.session_id.as_deref()
            && !given(model.headers.as_ref())
            && !options.base.headers.keys().any(|k| k == "x-affinity")
        {
            fixed.set("x-affinity", session);
        }
        WireHeaders {
            base,
            fixed,
            ..WireHeaders::default()
        }
    }

    fn body<'a>(
        &self,
        model: &'a Model,
        context: ContextRef<'a>,
        options: &'a MistralOptions,
    ) -> ChatRequest<'a> {
        build_request_body(model, context, options)
    }

    fn decoder(
        &self,
        model: &Model,
        _context: ContextRef<'_>,
        _options: &MistralOptions,
        _api_key: &str,
    ) -> MistralDecoder {
        MistralDecoder::new(model)
    }

    /// pi calls the SDK with `retries: {strategy: "none"}`: one attempt.
    fn retry_policy(&self, _options: &MistralOptions) -> RetryPolicy {
        RetryPolicy::NONE
    }
}
