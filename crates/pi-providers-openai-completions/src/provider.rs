//! The `openai-completions` wire over `pi-http`: URL, headers and decoder
//! of one call ([`OpenAiCompletionsWire`]), run by [`pi_http::stream_wire`].

use pi_ai::{CacheRetention, ContextRef, Model};
use pi_http::{Headers, Wire, WireHeaders, WireProvider, set_copilot_dynamic_headers};

use crate::compat::ResolvedCompat;
use crate::decode::OpenAiCompletionsDecoder;
use crate::options::{OpenAiCompletionsOptions, effective_cache_retention};
use crate::request::build_request_body;
use crate::wire::ChatCompletionRequest;

/// The `openai-completions` wire (pi's `streamOpenAICompletions`).
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenAiCompletionsWire;

/// The `openai-completions` stream function: [`OpenAiCompletionsWire`] over `pi-http`.
pub type OpenAiCompletionsProvider = WireProvider<OpenAiCompletionsWire>;

impl Wire for OpenAiCompletionsWire {
    type Options = OpenAiCompletionsOptions;
    type Body<'a> = ChatCompletionRequest<'a>;
    type Decoder = OpenAiCompletionsDecoder;

    /// `{baseUrl}/chat/completions`.
    fn url(&self, model: &Model) -> String {
        format!("{}/chat/completions", model.base_url.trim_end_matches('/'))
    }

    /// JSON content type and accept and `Authorization: Bearer`; after the
    /// model's headers, the session-affinity headers where the compat asks
    /// for them.
    fn headers(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: &OpenAiCompletionsOptions,
        api_key: &str,
    ) -> WireHeaders {
        let mut base = Headers::new();
        base.set("content-type", "application/json");
        base.set("accept", "application/json");
        base.set("authorization", &format!("Bearer {api_key}"));
        let mut after_model = Headers::new();
        set_copilot_dynamic_headers(&mut after_model, model, context);
        let compat = ResolvedCompat::for_model(model);
        if compat.send_session_affinity_headers
            && effective_cache_retention(&options.base) != CacheRetention::None
            && let Some(session) = options.base.session_id.as_deref()
        {
            for name in ["session_id", "x-client-request-id", "x-session-affinity"] {
                after_model.set(name, session);
            }
        }
        WireHeaders {
            base,
            after_model,
            ..WireHeaders::default()
        }
    }

    fn body<'a>(
        &self,
        model: &'a Model,
        context: ContextRef<'a>,
        options: &'a OpenAiCompletionsOptions,
    ) -> ChatCompletionRequest<'a> {
        build_request_body(model, context, options)
    }

    fn decoder(
        &self,
        model: &Model,
        _context: ContextRef<'_>,
        _options: &OpenAiCompletionsOptions,
        _api_key: &str,
    ) -> OpenAiCompletionsDecoder {
        OpenAiCompletionsDecoder::new(model)
    }
}
