//! HTTP glue: URL, headers and API key for one call, then the shared SSE
//! driver of `pi-http` with [`AnthropicDecoder`].

use pi_ai::{
    AssistantMessage, AssistantMessageEventStream, CacheRetention, Context, Model, Provider,
    get_env_api_key, now_ms,
};
use pi_http::{HttpRequest, SseCall, stream_sse};

use crate::decode::AnthropicDecoder;
use crate::options::{
    AnthropicCompat, AnthropicOptions, resolve_cache_retention, uses_adaptive_thinking,
};
use crate::request::{build_request_body, is_oauth_token};

/// The `anthropic-version` header value.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// Beta for servers that do not take per-tool `eager_input_streaming`.
pub const FINE_GRAINED_TOOL_STREAMING_BETA: &str = "fine-grained-tool-streaming-2025-05-14";
/// Beta for thinking between tool calls on non-adaptive models.
pub const INTERLEAVED_THINKING_BETA: &str = "interleaved-thinking-2025-05-14";
/// Betas every OAuth (Claude Code) call sends first.
pub const OAUTH_BETAS: [&str; 2] = ["claude-code-20250219", "oauth-2025-04-20"];
/// The Claude Code version OAuth calls present themselves as.
pub const CLAUDE_CODE_VERSION: &str = "2.1.75";
/// Used when the model has no base URL.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// `{baseUrl}/v1/messages`.
pub fn messages_url(model: &Model) -> String {
    let base = model.base_url.trim_end_matches('/');
    let base = if base.is_empty() {
        DEFAULT_BASE_URL
    } else {
        base
    };
    format!("{base}/v1/messages")
}

/// The request headers, names lower-cased, in the order pi's SDK client
/// sends them: client defaults (accept, browser access, betas, Claude Code
/// identity for OAuth, session affinity), then auth, version and content
/// type; `model.headers` and then `options.base.headers` override by name.
///
/// Auth is `x-api-key`, or `authorization: Bearer` for OAuth tokens and
/// GitHub Copilot.
pub fn build_headers(
    model: &Model,
    context: &Context,
    options: &AnthropicOptions,
    api_key: &str,
) -> Vec<(String, String)> {
    let compat = AnthropicCompat::of(model);
    let oauth = is_oauth_token(api_key);
    let has_tools = context.tools.as_ref().is_some_and(|t| !t.is_empty());
    let mut betas: Vec<&str> = Vec::new();
    if oauth {
        betas.extend(OAUTH_BETAS);
    }
    if has_tools && !compat.supports_eager_tool_input_streaming {
        betas.push(FINE_GRAINED_TOOL_STREAMING_BETA);
    }
    if options.interleaved_thinking.unwrap_or(true) && !uses_adaptive_thinking(model) {
        betas.push(INTERLEAVED_THINKING_BETA);
    }

    let mut headers = Headers::default();
    headers.set("accept", "application/json");
    headers.set("anthropic-dangerous-direct-browser-access", "true");
    if !betas.is_empty() {
        headers.set("anthropic-beta", &betas.join(","));
    }
    if oauth {
        headers.set("user-agent", &format!("claude-cli/{CLAUDE_CODE_VERSION}"));
        headers.set("x-app", "cli");
    }
    let bearer = oauth || model.provider == Provider::GITHUB_COPILOT;
    let caching = options.base.cache_retention != Some(CacheRetention::None);
    if let Some(session_id) = options.base.session_id.as_deref()
        && caching
        && compat.send_session_affinity_headers
        && !bearer
    {
        headers.set("x-session-affinity", session_id);
    }
    if bearer {
        headers.set("authorization", &format!("Bearer {api_key}"));
    } else {
        headers.set("x-api-key", api_key);
    }
    headers.set("anthropic-version", ANTHROPIC_VERSION);
    headers.set("content-type", "application/json");
    for (name, value) in model.headers.iter().flatten() {
        headers.set(name, value);
    }
    for (name, value) in &options.base.headers {
        headers.set(name, value);
    }
    headers.0
}

/// An ordered header list where a later value replaces an earlier one of the
/// same (case-insensitive) name.
#[derive(Default)]
struct Headers(Vec<(String, String)>);

impl Headers {
    fn set(&mut self, name: &str, value: &str) {
        let name = name.to_ascii_lowercase();
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some(entry) => value.clone_into(&mut entry.1),
            None => self.0.push((name, value.to_owned())),
        }
    }
}

/// Streams one call (pi's `streamAnthropic`). Without an API key (options,
/// then the provider's environment variable) the stream fails at once with
/// `No API key for provider: X`.
pub fn stream_anthropic(
    model: &Model,
    context: &Context,
    mut options: AnthropicOptions,
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
        let error = format!("No API key for provider: {}", model.provider);
        return AssistantMessageEventStream::failed(initial, error);
    };
    options.base.api_key = Some(api_key.clone());
    options.base.cache_retention = Some(resolve_cache_retention(
        options.base.cache_retention,
        |name| std::env::var(name).ok(),
    ));

    let body = build_request_body(model, context, &options);
    let body = match serde_json::to_value(&body) {
        Ok(value) => options.base.apply_on_payload(value, model),
        Err(error) => {
            let error = format!("Could not encode the request: {error}");
            return AssistantMessageEventStream::failed(initial, error);
        }
    };
    let body = match serde_json::to_vec(&body) {
        Ok(bytes) => bytes,
        Err(error) => {
            let error = format!("Could not encode the request: {error}");
            return AssistantMessageEventStream::failed(initial, error);
        }
    };
    let request = HttpRequest {
        url: messages_url(model),
        headers: build_headers(model, context, &options, &api_key),
        body: body.into(),
    };
    let mut decoder = AnthropicDecoder::new(model.clone());
    if is_oauth_token(&api_key) {
        let names = context.tools.iter().flatten().map(|t| t.name.clone());
        decoder = decoder.with_tool_names(names.collect());
    }
    let cancel = options.base.cancel.clone();
    stream_sse(
        initial,
        SseCall::new(request, &options.base),
        cancel,
        decoder,
    )
}
