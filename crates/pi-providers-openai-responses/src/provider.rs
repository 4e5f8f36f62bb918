//! HTTP glue: URL, headers, API key, body bytes, and the shared SSE driver.

use pi_ai::{
    AssistantMessage, AssistantMessageEventStream, Context, Model, get_env_api_key, now_ms,
};
use pi_http::{HttpRequest, RetryPolicy, SseCall, stream_sse};

use crate::decode::ResponsesDecoder;
use crate::options::{ResponsesOptions, compat_flag};
use crate::request::build_request_body;

/// The OpenAI SDK's base URL, used when a model has none.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// `{baseUrl}/responses` (one trailing slash of the base is dropped).
pub fn request_url(model: &Model) -> String {
    let base = if model.base_url.is_empty() {
        DEFAULT_BASE_URL
    } else {
        model.base_url.as_str()
    };
    let base = base.strip_suffix('/').unwrap_or(base);
    format!("{base}/responses")
}

/// The request headers, later entries replacing earlier ones of the same
/// name (case-insensitive), in the order the OpenAI SDK merges them:
/// `accept` and `authorization`; the model's headers; `session_id` (unless
/// the model's `compat.sendSessionIdHeader` is false) and
/// `x-client-request-id` carrying the cache session id; the caller's
/// headers; `content-type`.
pub fn build_headers(
    model: &Model,
    api_key: &str,
    options: &ResponsesOptions,
) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut set = |name: &str, value: &str| {
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        headers.push((name.to_owned(), value.to_owned()));
    };
    set("accept", "application/json");
    set("authorization", &format!("Bearer {api_key}"));
    for (name, value) in model.headers.iter().flatten() {
        set(name, value);
    }
    if let Some(session_id) = options.cache_session_id() {
        if compat_flag(model, "sendSessionIdHeader", true) {
            set("session_id", session_id);
        }
        set("x-client-request-id", session_id);
    }
    for (name, value) in &options.base.headers {
        set(name, value);
    }
    set("content-type", "application/json");
    headers
}

/// Streams one call: resolves the key and cache retention, encodes the
/// body (through `on_payload`), and hands the request to the shared driver.
pub(crate) fn stream(
    model: &Model,
    context: &Context,
    mut options: ResponsesOptions,
    policy: Option<RetryPolicy>,
) -> AssistantMessageEventStream {
    let initial = AssistantMessage::empty(
        model.api.clone(),
        model.provider.clone(),
        model.id.clone(),
        now_ms(),
    );
    let api_key = options
        .base
        .api_key
        .clone()
        .filter(|key| !key.is_empty())
        .or_else(|| get_env_api_key(model.provider.as_str()));
    let Some(api_key) = api_key else {
        return AssistantMessageEventStream::failed(
            initial,
            format!("No API key for provider: {}", model.provider),
        );
    };
    let env_long = std::env::var("PI_CACHE_RETENTION").is_ok_and(|v| v == "long");
    options.base.cache_retention = Some(options.resolved_cache_retention(env_long));

    let body = build_request_body(model, context, &options);
    let bytes = match &options.base.on_payload {
        None => serde_json::to_vec(&body),
        Some(_) => serde_json::to_value(&body)
            .map(|value| options.base.apply_on_payload(value, model))
            .and_then(|value| serde_json::to_vec(&value)),
    };
    let bytes = match bytes {
        Ok(bytes) => bytes,
        Err(error) => {
            return AssistantMessageEventStream::failed(
                initial,
                format!("Could not encode the request: {error}"),
            );
        }
    };
    let request = HttpRequest {
        url: request_url(model),
        headers: build_headers(model, &api_key, &options),
        body: bytes.into(),
    };
    let mut call = SseCall::new(request, &options.base);
    if let Some(policy) = policy {
        call.policy = policy;
    }
    let decoder = ResponsesDecoder::new(model.clone(), options.service_tier);
    stream_sse(initial, call, options.base.cancel, decoder)
}
