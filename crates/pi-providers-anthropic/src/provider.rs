//! The `anthropic-messages` wire over `pi-http`: URL, headers and decoder
//! of one call ([`AnthropicWire`]), run by [`pi_http::stream_wire`].

use pi_ai::{CacheRetention, ContextRef, Model, Provider};
use pi_http::{Headers, Wire, WireError, WireHeaders, WireProvider, set_copilot_dynamic_headers};

use crate::decode::AnthropicDecoder;
use crate::options::{
    AnthropicCompat, AnthropicOptions, resolve_cache_retention, uses_adaptive_thinking,
};
use crate::request::{build_request_body, is_oauth_token};
use crate::wire::MessagesRequest;

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

/// The `anthropic-messages` wire (pi's `streamAnthropic`).
#[derive(Debug, Clone, Copy, Default)]
pub struct AnthropicWire;

/// The `anthropic-messages` stream function: [`AnthropicWire`] over `pi-http`.
pub type AnthropicProvider = WireProvider<AnthropicWire>;

impl Wire for AnthropicWire {
    type Options = AnthropicOptions;
    type Body<'a> = MessagesRequest<'a>;
    type Decoder = AnthropicDecoder;

    /// Resolves the cache retention (`PI_CACHE_RETENTION=long` when unset).
    fn resolve(&self, _model: &Model, options: &mut AnthropicOptions) -> Result<Self, WireError> {
        options.base.cache_retention = Some(resolve_cache_retention(
            options.base.cache_retention,
            |name| std::env::var(name).ok(),
        ));
        Ok(*self)
    }

    /// `{baseUrl}/v1/messages`.
    fn url(&self, model: &Model) -> String {
        messages_url(model)
    }

    fn headers(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: &AnthropicOptions,
        api_key: &str,
    ) -> WireHeaders {
        let mut after_model = Headers::new();
        set_copilot_dynamic_headers(&mut after_model, model, context);
        WireHeaders {
            base: own_headers(model, context, options, api_key),
            after_model,
            ..WireHeaders::default()
        }
    }

    fn body<'a>(
        &self,
        model: &'a Model,
        context: ContextRef<'a>,
        options: &'a AnthropicOptions,
    ) -> MessagesRequest<'a> {
        build_request_body(model, context, options)
    }

    /// OAuth calls rename Claude Code's tools back to the context's names.
    fn decoder(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        _options: &AnthropicOptions,
        api_key: &str,
    ) -> AnthropicDecoder {
        let decoder = AnthropicDecoder::new(model.clone());
        if !is_oauth_token(api_key) {
            return decoder;
        }
        let names = context.tools.into_iter().flatten().map(|t| t.name.clone());
        decoder.with_tool_names(names.collect())
    }
}

/// `{baseUrl}/v1/messages`.
fn messages_url(model: &Model) -> String {
    let base = model.base_url.trim_end_matches('/');
    let base = if base.is_empty() {
        DEFAULT_BASE_URL
    } else {
        base
    };
    format!("{base}/v1/messages")
}

/// The wire's own headers, in the order pi's SDK client sends them: client
/// defaults (accept, browser access, betas, Claude Code identity for OAuth,
/// session affinity), then auth, version and content type. Auth is
/// `x-api-key`, or `authorization: Bearer` for OAuth tokens and GitHub Copilot.
fn own_headers(
    model: &Model,
    context: ContextRef<'_>,
    options: &AnthropicOptions,
    api_key: &str,
) -> Headers {
    let compat = AnthropicCompat::of(model);
    let oauth = is_oauth_token(api_key);
    let has_tools = context.tools.is_some_and(|t| !t.is_empty());
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

    let mut headers = Headers::new();
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
    headers
}
