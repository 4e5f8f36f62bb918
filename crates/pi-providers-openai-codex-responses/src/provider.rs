//! The `openai-codex-responses` wire over `pi-http` (whose `resolve`
//! checks the token's account id), and the provider that sends a call over
//! SSE through [`WireProvider`] or over the session's WebSocket.

use std::sync::Arc;
use std::time::Duration;

use pi_ai::{
    Api, AssistantMessage, AssistantMessageEventStream, ContextRef, Model, SimpleStreamOptions,
    StreamFunction, StreamOptions, Transport, now_ms, register_api_provider,
};
use pi_http::{
    DEFAULT_FIRST_BYTE_TIMEOUT, DEFAULT_IDLE_TIMEOUT, Headers, HttpRequest, RetryPolicy, SseCall,
    Wire, WireError, WireHeaders, WireOptions, WireProvider, drive_sse, prepare_request,
};
use serde_json::Value;

use crate::auth::{account_id, user_agent};
use crate::decode::OpenAiCodexDecoder;
use crate::options::OpenAiCodexOptions;
use crate::request::build_request_body;
use crate::wire::RequestBody;
use crate::ws_cache;
use crate::ws_request::{codex_websocket_url, websocket_headers};
use crate::ws_stream::{self, Outcome, WebSocketCall};

/// The ChatGPT backend, used when a model has no base URL.
pub const DEFAULT_BASE_URL: &str = "https://chatgpt.com/backend-api";

/// pi's `resolveCodexUrl`: the base (trailing slashes dropped) with
/// `/codex/responses`, unless it already ends in `/codex` or `/codex/responses`.
pub fn codex_url(base_url: &str) -> String {
    let raw = if base_url.trim().is_empty() {
        DEFAULT_BASE_URL
    } else {
        base_url
    };
    let normalized = raw.trim_end_matches('/');
    if normalized.ends_with("/codex/responses") {
        normalized.to_owned()
    } else if normalized.ends_with("/codex") {
        format!("{normalized}/responses")
    } else {
        format!("{normalized}/codex/responses")
    }
}

/// The `openai-codex-responses` wire (pi's `streamOpenAICodexResponses`,
/// SSE transport).
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenAiCodexWire;

impl Wire for OpenAiCodexWire {
    type Options = OpenAiCodexOptions;
    type Body<'a> = RequestBody<'a>;
    type Decoder = OpenAiCodexDecoder;

    /// A key that is not a JWT with a ChatGPT account id ends the call with
    /// pi's error (after a missing key, which is reported first, as in pi).
    fn resolve(&self, _model: &Model, options: &mut OpenAiCodexOptions) -> Result<Self, WireError> {
        account_id(options.base.api_key.as_deref().unwrap_or_default()).map_err(WireError::call)?;
        Ok(*self)
    }

    fn url(&self, model: &Model) -> String {
        codex_url(&model.base_url)
    }

    /// pi's SSE headers, set over the model's and the call's: the bearer
    /// token, `chatgpt-account-id`, `originator: pi`, pi's user agent,
    /// `OpenAI-Beta: responses=experimental`, `accept`, `content-type`, and
    /// `session_id` / `x-client-request-id` for a session.
    fn headers(
        &self,
        _model: &Model,
        _context: ContextRef<'_>,
        options: &OpenAiCodexOptions,
        api_key: &str,
    ) -> WireHeaders {
        let mut fixed = Headers::new();
        fixed.set("authorization", &format!("Bearer {api_key}"));
        // `resolve` checked the token before the call.
        fixed.set(
            "chatgpt-account-id",
            &account_id(api_key).unwrap_or_default(),
        );
        fixed.set("originator", "pi");
        fixed.set("user-agent", user_agent());
        fixed.set("openai-beta", "responses=experimental");
        fixed.set("accept", "text/event-stream");
        fixed.set("content-type", "application/json");
        if let Some(session_id) = options.base.session_id.as_deref() {
            fixed.set("session_id", session_id);
            fixed.set("x-client-request-id", session_id);
        }
        WireHeaders {
            base: Headers::new(),
            after_model: Headers::new(),
            fixed,
        }
    }

    fn body<'a>(
        &self,
        model: &'a Model,
        context: ContextRef<'a>,
        options: &'a OpenAiCodexOptions,
    ) -> RequestBody<'a> {
        build_request_body(model, context, options)
    }

    fn decoder(
        &self,
        model: &Model,
        _context: ContextRef<'_>,
        options: &OpenAiCodexOptions,
        _api_key: &str,
    ) -> OpenAiCodexDecoder {
        OpenAiCodexDecoder::new(model.clone(), options.service_tier.clone())
    }

    /// pi's own loop: three retries after 1 s, 2 s and 4 s.
    fn retry_policy(&self, options: &OpenAiCodexOptions) -> RetryPolicy {
        RetryPolicy {
            max_retries: 3,
            initial_delay: Duration::from_secs(1),
            max_backoff: Duration::from_secs(4),
            ..RetryPolicy::for_options(options.base())
        }
    }
}

/// The `openai-codex-responses` stream function: the call goes over the
/// transport of `options.transport`: `sse` through [`WireProvider`] of
/// [`OpenAiCodexWire`], else (pi's default `auto`) the session's WebSocket,
/// with SSE when the socket fails before the first event.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenAiCodexProvider {
    retry_policy: Option<RetryPolicy>,
}

impl OpenAiCodexProvider {
    /// The provider with pi's Codex retries.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses `policy` for retries before the stream starts.
    #[must_use]
    pub fn with_retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry_policy = Some(policy);
        self
    }

    /// Streams with the wire's full options.
    pub fn stream_with<'c>(
        &self,
        model: &Model,
        context: impl Into<ContextRef<'c>>,
        options: OpenAiCodexOptions,
    ) -> AssistantMessageEventStream {
        let context = context.into();
        let transport = options.base.transport.unwrap_or_default();
        if transport == Transport::Sse {
            let mut provider = WireProvider::of(OpenAiCodexWire);
            if let Some(policy) = self.retry_policy {
                provider = provider.with_retry_policy(policy);
            }
            return provider.stream_with(model, context, options);
        }
        self.stream_websocket(model, context, options, transport)
    }

    /// pi's `auto` / `websocket` / `websocket-cached` transports: the
    /// call over the session's socket, unless the session already fell
    /// back to SSE; a socket failing before the first event sends the call
    /// over SSE instead.
    fn stream_websocket(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        mut options: OpenAiCodexOptions,
        transport: Transport,
    ) -> AssistantMessageEventStream {
        let initial = AssistantMessage::empty(
            model.api.clone(),
            model.provider.clone(),
            model.id.clone(),
            now_ms(),
        );
        let prepared = match prepare_request(&OpenAiCodexWire, model, context, &mut options) {
            Ok(prepared) => prepared,
            Err(error) => return error.into_stream(initial),
        };
        let websocket_decoder =
            OpenAiCodexDecoder::for_websocket(model.clone(), options.service_tier.clone());
        let wire = prepared.wire;
        let decoder = wire.decoder(model, context, &options, &prepared.api_key);
        let policy = self
            .retry_policy
            .unwrap_or_else(|| wire.retry_policy(&options));
        let cancel = options.base.cancel.clone();
        let model = model.clone();
        AssistantMessageEventStream::new(initial, cancel.clone(), move |sink| async move {
            let mut sink = sink;
            // The `on_payload` hook sees the body both transports send (the
            // socket's `response.create` message is made from it), as in pi.
            let request = match prepared.finish(&model, &options).await {
                Ok(request) => request,
                Err(error) => return error.fail(sink),
            };
            let session = options.base.session_id.clone();
            let websocket = websocket_call(&request, &model, &options, transport);
            let mut call = SseCall::new(request, options.base());
            call.policy = policy;
            if ws_cache::sse_fallback_active(session.as_deref()) {
                ws_cache::record_sse_fallback(session.as_deref());
            } else if let Some(websocket) = websocket {
                match ws_stream::run(sink, websocket, websocket_decoder, cancel.clone()).await {
                    Outcome::Finished => return,
                    Outcome::Fallback(back) => sink = back,
                }
            }
            drive_sse(sink, call, cancel, decoder).await;
        })
    }

    /// Registers this provider for `api` in pi's global api registry.
    pub fn register(self, api: Api, source_id: &str) {
        register_api_provider(api, Arc::new(self), source_id);
    }
}

/// The call over a socket for `request` (the SSE request of the call):
/// `None` when a payload hook made the body something other than an object,
/// which only SSE sends as it is.
fn websocket_call(
    request: &HttpRequest,
    model: &Model,
    options: &OpenAiCodexOptions,
    transport: Transport,
) -> Option<WebSocketCall> {
    let Ok(Value::Object(body)) = serde_json::from_slice::<Value>(&request.body) else {
        return None;
    };
    let session = options.base.session_id.clone();
    let request_id = session
        .clone()
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    Some(WebSocketCall {
        url: codex_websocket_url(&model.base_url),
        headers: websocket_headers(&request.headers, &request_id),
        body,
        request_bytes: request.body.len(),
        transport,
        session,
        connect_timeout: options.base.timeout.unwrap_or(DEFAULT_FIRST_BYTE_TIMEOUT),
        idle_timeout: options.base.idle_timeout.unwrap_or(DEFAULT_IDLE_TIMEOUT),
        model: model.clone(),
        on_response: options.base.on_response.clone(),
    })
}

impl StreamFunction for OpenAiCodexProvider {
    fn stream(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        self.stream_with(
            model,
            context,
            OpenAiCodexOptions::from_stream(model, options),
        )
    }

    fn stream_simple(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        self.stream_with(
            model,
            context,
            OpenAiCodexOptions::from_simple(model, options),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_is_built_from_the_base_url() {
        for (base, url) in [
            ("", "https://chatgpt.com/backend-api/codex/responses"),
            ("  ", "https://chatgpt.com/backend-api/codex/responses"),
            (
                "http://h/backend-api//",
                "http://h/backend-api/codex/responses",
            ),
            ("http://h/x/codex", "http://h/x/codex/responses"),
            ("http://h/x/codex/responses/", "http://h/x/codex/responses"),
        ] {
            assert_eq!(codex_url(base), url, "{base:?}");
        }
    }
}
