//! HTTP glue: endpoint URL, headers, API key, and the call through
//! [`pi_http::stream_sse`] with the [`GoogleDecoder`].

use pi_ai::{
    Api, AssistantMessage, AssistantMessageEventStream, Context, Model, StreamOptions,
    get_env_api_key, now_ms,
};
use pi_http::{HttpRequest, SseCall, stream_sse};

use crate::decode::GoogleDecoder;
use crate::options::GoogleOptions;
use crate::request::build_request_body;

/// The Gemini API root used when a model has no base URL.
pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";

/// The header that carries the API key.
pub const API_KEY_HEADER: &str = "x-goog-api-key";

/// `{baseUrl}/models/{model}:streamGenerateContent?alt=sse` (the base URL
/// already holds the API version, e.g. `.../v1beta`).
pub fn endpoint_url(model: &Model) -> String {
    let base = model.base_url.trim_end_matches('/');
    let base = if base.is_empty() {
        DEFAULT_BASE_URL
    } else {
        base
    };
    format!("{base}/models/{}:streamGenerateContent?alt=sse", model.id)
}

/// The key for `model`: `options.api_key` when set and non-empty, else the
/// provider's environment variable (`GEMINI_API_KEY` for `google`).
pub fn resolve_api_key(model: &Model, options: &StreamOptions) -> Option<String> {
    options
        .api_key
        .clone()
        .filter(|key| !key.is_empty())
        .or_else(|| get_env_api_key(model.provider.as_str()))
}

/// The HTTP request for an encoded `body`: `content-type`, the key in
/// `x-goog-api-key`, then the model's headers and the call's headers (a
/// later header replaces an earlier one of the same name).
pub fn build_http_request(
    model: &Model,
    options: &StreamOptions,
    api_key: &str,
    body: Vec<u8>,
) -> HttpRequest {
    let mut headers: Vec<(String, String)> = vec![
        ("content-type".to_owned(), "application/json".to_owned()),
        (API_KEY_HEADER.to_owned(), api_key.to_owned()),
    ];
    let extra = model.headers.iter().flatten().chain(&options.headers);
    for (name, value) in extra {
        match headers
            .iter_mut()
            .find(|(existing, _)| existing.eq_ignore_ascii_case(name))
        {
            Some(slot) => slot.1.clone_from(value),
            None => headers.push((name.clone(), value.clone())),
        }
    }
    HttpRequest {
        url: endpoint_url(model),
        headers,
        body: body.into(),
    }
}

/// Streams one assistant message from a Google Generative AI model.
///
/// Never fails outside the stream: a missing key ends it with
/// `No API key for provider: X`, HTTP and transport failures with an
/// `error` event, cancellation with `aborted`.
pub fn stream_google(
    model: &Model,
    context: &Context,
    options: GoogleOptions,
) -> AssistantMessageEventStream {
    let initial = AssistantMessage::empty(
        Api::GOOGLE_GENERATIVE_AI,
        model.provider.clone(),
        model.id.clone(),
        now_ms(),
    );
    let Some(api_key) = resolve_api_key(model, &options.base) else {
        let text = format!("No API key for provider: {}", model.provider);
        return AssistantMessageEventStream::failed(initial, text);
    };
    let request = build_request_body(model, context, &options);
    let body = match &options.base.on_payload {
        None => serde_json::to_vec(&request),
        Some(_) => serde_json::to_value(&request)
            .and_then(|value| serde_json::to_vec(&options.base.apply_on_payload(value, model))),
    };
    let body = match body {
        Ok(body) => body,
        Err(error) => {
            let text = format!("Could not encode the Google request: {error}");
            return AssistantMessageEventStream::failed(initial, text);
        }
    };
    let http = build_http_request(model, &options.base, &api_key, body);
    let mut call = SseCall::new(http, &options.base);
    // pi's Google client is created without retry options, so a failed
    // request is not sent again by the transport (the app's auto-retry still applies).
    call.policy = pi_http::RetryPolicy::NONE;
    stream_sse(
        initial,
        call,
        options.base.cancel,
        GoogleDecoder::new(model),
    )
}
