//! HTTP glue: URL, headers, API key and body for one call, handed to the
//! shared SSE driver with this wire's decoder.

use pi_ai::{
    AssistantMessage, AssistantMessageEventStream, CacheRetention, Context, Model, get_env_api_key,
    now_ms,
};
use pi_http::{HttpRequest, SseCall, stream_sse};

use crate::compat::ResolvedCompat;
use crate::decode::CompletionsDecoder;
use crate::request::{OpenAICompletionsOptions, build_request, effective_cache_retention};

/// `{baseUrl}/chat/completions`.
pub fn endpoint_url(model: &Model) -> String {
    format!("{}/chat/completions", model.base_url.trim_end_matches('/'))
}

/// The API key: the option if non-empty, else the provider's environment variable.
pub fn resolve_api_key(model: &Model, options: &OpenAICompletionsOptions) -> Option<String> {
    options
        .base
        .api_key
        .clone()
        .filter(|key| !key.is_empty())
        .or_else(|| get_env_api_key(model.provider.as_str()))
}

/// Request headers, later entries replacing earlier ones of the same name
/// (case-insensitive): JSON content type and accept, `Authorization:
/// Bearer`, the model's headers, session-affinity headers where the compat
/// asks for them, then the call's headers.
pub fn request_headers(
    model: &Model,
    options: &OpenAICompletionsOptions,
    api_key: &str,
) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut set = |name: &str, value: &str| {
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        headers.push((name.to_owned(), value.to_owned()));
    };
    set("content-type", "application/json");
    set("accept", "application/json");
    set("authorization", &format!("Bearer {api_key}"));
    for (name, value) in model.headers.iter().flatten() {
        set(name, value);
    }
    let compat = ResolvedCompat::for_model(model);
    if compat.send_session_affinity_headers
        && effective_cache_retention(&options.base) != CacheRetention::None
        && let Some(session) = options.base.session_id.as_deref()
    {
        set("session_id", session);
        set("x-client-request-id", session);
        set("x-session-affinity", session);
    }
    for (name, value) in &options.base.headers {
        set(name, value);
    }
    headers
}

/// Streams one Chat Completions call. Never fails outside the stream: a
/// missing key or an unusable body ends it with an `error` event.
pub fn stream_completions(
    model: &Model,
    context: &Context,
    options: OpenAICompletionsOptions,
) -> AssistantMessageEventStream {
    let initial = AssistantMessage::empty(
        model.api.clone(),
        model.provider.clone(),
        model.id.clone(),
        now_ms(),
    );
    let Some(api_key) = resolve_api_key(model, &options) else {
        let message = format!("No API key for provider: {}", model.provider);
        return AssistantMessageEventStream::failed(initial, message);
    };
    let request = build_request(model, context, &options);
    let body = match &options.base.on_payload {
        Some(_) => serde_json::to_value(&request)
            .map(|value| options.base.apply_on_payload(value, model))
            .and_then(|value| serde_json::to_vec(&value)),
        None => serde_json::to_vec(&request),
    };
    let body = match body {
        Ok(body) => body,
        Err(error) => {
            let message = format!("Could not encode the request body: {error}");
            return AssistantMessageEventStream::failed(initial, message);
        }
    };
    let http = HttpRequest {
        url: endpoint_url(model),
        headers: request_headers(model, &options, &api_key),
        body: body.into(),
    };
    let call = SseCall::new(http, &options.base);
    stream_sse(
        initial,
        call,
        options.base.cancel,
        CompletionsDecoder::new(model),
    )
}
