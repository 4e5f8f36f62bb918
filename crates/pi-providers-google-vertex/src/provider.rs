//! The `google-vertex` wire over `pi-http`. [`VertexWire`] is one call's
//! addressing (URL, auth header, body, decoder); [`VertexProvider`] picks the
//! mode as pi does and runs it:
//!
//! 1. An API key (`options.apiKey`, else `GOOGLE_CLOUD_API_KEY`, trimmed;
//!    pi's `gcp-vertex-credentials` marker and `<...>` placeholders such as
//!    `<authenticated>` do not count) goes in `x-goog-api-key`.
//! 2. Otherwise Application Default Credentials: a project (`options`,
//!    `GOOGLE_CLOUD_PROJECT`, `GCLOUD_PROJECT`) and a location (`options`,
//!    `GOOGLE_CLOUD_LOCATION`) are required, the credentials file is found
//!    and an access token fetched (cached, see [`TokenCache`]) before the
//!    request is sent with `authorization: Bearer`.

use std::sync::Arc;

use pi_ai::{
    ABORTED_MESSAGE, Api, AssistantMessage, AssistantMessageEventStream, Context, ContextRef,
    ErrorReason, EventSink, Model, SimpleStreamOptions, StreamFunction, StreamOptions, now_ms,
    register_api_provider,
};
use pi_http::{
    Headers, HttpRequest, RetryPolicy, SseCall, Wire, WireHeaders, WireOptions, WireProvider,
    drive_sse, encode_body, wire_headers,
};
use pi_providers_google::wire::GenerateContentRequest;

use crate::credentials::find_credentials;
use crate::decode::VertexDecoder;
use crate::endpoint::{Target, stream_url};
use crate::env::VertexEnv;
use crate::error::VertexError;
use crate::options::VertexOptions;
use crate::request::build_request_body;
use crate::token::TokenCache;

/// The header of the API key.
pub const API_KEY_HEADER: &str = "x-goog-api-key";

/// The API-key value that tells pi to use ADC instead.
pub const CREDENTIALS_MARKER: &str = "gcp-vertex-credentials";

/// One Vertex call's addressing: where it goes and how it authenticates.
/// The default is API-key mode with the SDK's default root.
#[derive(Debug, Clone, Default)]
pub struct VertexWire {
    /// API key or project/location (ADC).
    pub target: Target,
    /// `GOOGLE_VERTEX_BASE_URL`, when set.
    pub env_base: Option<String>,
    /// `x-goog-user-project` (ADC quota project), when known.
    pub quota_project: Option<String>,
}

impl Wire for VertexWire {
    type Options = VertexOptions;
    type Body<'a> = GenerateContentRequest<'a>;
    type Decoder = VertexDecoder;

    /// The streaming URL, built by the rules of this crate's `endpoint` module.
    fn url(&self, model: &Model) -> String {
        stream_url(
            &model.base_url,
            self.env_base.as_deref(),
            &model.id,
            &self.target,
        )
    }

    /// `content-type`, then the key (`x-goog-api-key`) or the access token
    /// (`authorization: Bearer`, plus `x-goog-user-project`). As in pi's SDK,
    /// a header of the same name from the model or the call wins.
    fn headers(
        &self,
        _model: &Model,
        _context: ContextRef<'_>,
        _options: &VertexOptions,
        api_key: &str,
    ) -> WireHeaders {
        let mut base = Headers::new();
        base.set("content-type", "application/json");
        match self.target {
            Target::ApiKey => base.set(API_KEY_HEADER, api_key),
            Target::Project { .. } => {
                base.set("authorization", &format!("Bearer {api_key}"));
                if let Some(project) = &self.quota_project {
                    base.set("x-goog-user-project", project);
                }
            }
        }
        WireHeaders {
            base,
            ..WireHeaders::default()
        }
    }

    fn body<'a>(
        &self,
        model: &'a Model,
        context: ContextRef<'a>,
        options: &'a VertexOptions,
    ) -> GenerateContentRequest<'a> {
        build_request_body(model, context, options)
    }

    fn decoder(
        &self,
        model: &Model,
        _context: ContextRef<'_>,
        _options: &VertexOptions,
        _api_key: &str,
    ) -> VertexDecoder {
        VertexDecoder::new(model)
    }

    /// None: pi's Google Gen AI client is created without retry options.
    fn retry_policy(&self, _options: &VertexOptions) -> RetryPolicy {
        RetryPolicy::NONE
    }
}

/// The `google-vertex` stream function.
#[derive(Debug, Clone)]
pub struct VertexProvider {
    env: VertexEnv,
    tokens: Arc<TokenCache>,
    retry_policy: Option<RetryPolicy>,
}

impl Default for VertexProvider {
    fn default() -> Self {
        Self::new()
    }
}

impl VertexProvider {
    /// Reads the process environment; tokens in the process-wide cache.
    pub fn new() -> Self {
        Self {
            env: VertexEnv::process(),
            tokens: TokenCache::global(),
            retry_policy: None,
        }
    }

    /// Reads only `env`, with a token cache of its own.
    pub fn with_env(env: VertexEnv) -> Self {
        Self {
            env,
            tokens: Arc::new(TokenCache::new()),
            retry_policy: None,
        }
    }

    /// Uses `policy` for retries before the stream starts.
    #[must_use]
    pub fn with_retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry_policy = Some(policy);
        self
    }

    /// Registers this provider for `google-vertex` in pi's api registry.
    pub fn register(self, source_id: &str) {
        register_api_provider(Api::GOOGLE_VERTEX, Arc::new(self), source_id);
    }

    /// The API key of a call, as pi's `resolveApiKey` finds it.
    pub fn api_key(&self, options: &StreamOptions) -> Option<String> {
        let key = options
            .api_key
            .as_deref()
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(str::to_owned)
            .or_else(|| self.env.trimmed("GOOGLE_CLOUD_API_KEY"))?;
        let placeholder = key.len() > 2
            && key.starts_with('<')
            && key.ends_with('>')
            && !key[1..key.len() - 1].contains('>');
        (key != CREDENTIALS_MARKER && !placeholder).then_some(key)
    }

    /// Streams with the full options.
    pub fn stream_with<'c>(
        &self,
        model: &Model,
        context: impl Into<ContextRef<'c>>,
        mut options: VertexOptions,
    ) -> AssistantMessageEventStream {
        let context = context.into();
        let env_base = self.env.trimmed("GOOGLE_VERTEX_BASE_URL");
        if let Some(key) = self.api_key(&options.google.base) {
            options.google.base.api_key = Some(key);
            let wire = VertexWire {
                target: Target::ApiKey,
                env_base,
                quota_project: None,
            };
            let provider = WireProvider::of(wire);
            let provider = match self.retry_policy {
                Some(policy) => provider.with_retry_policy(policy),
                None => provider,
            };
            return provider.stream_with(model, context, options);
        }
        let initial = AssistantMessage::empty(
            model.api.clone(),
            model.provider.clone(),
            model.id.clone(),
            now_ms(),
        );
        let target = match self.project_and_location(&options) {
            Ok(target) => target,
            Err(error) => return AssistantMessageEventStream::failed(initial, error.to_string()),
        };
        // Everything that needs the context is done now; only the URL and
        // the headers wait for the token.
        let mut wire = VertexWire {
            target,
            env_base,
            quota_project: None,
        };
        let body = match encode_body(&wire, model, context, &options) {
            Ok(body) => body,
            Err(error) => return AssistantMessageEventStream::failed(initial, error.to_string()),
        };
        let decoder = wire.decoder(model, context, &options, "");
        let policy = self
            .retry_policy
            .unwrap_or_else(|| wire.retry_policy(&options));
        let cancel = options.google.base.cancel.clone();
        let (env, tokens, model) = (self.env.clone(), Arc::clone(&self.tokens), model.clone());
        AssistantMessageEventStream::new(initial, cancel.clone(), move |sink| async move {
            // The `on_payload` hook first, as pi calls it before its client
            // fetches the token.
            let body = match body.finish(&model).await {
                Ok(body) => body,
                Err(error) => return sink.error(ErrorReason::Error, error.to_string()),
            };
            let (path, credentials) = match find_credentials(&env).await {
                Ok(found) => found,
                Err(error) => return fail(sink, &error),
            };
            let source = path.display().to_string();
            let token = match tokens.access_token(&credentials, &source, &cancel).await {
                Ok(token) => token,
                Err(error) => return fail(sink, &error),
            };
            wire.quota_project = credentials.quota_project(&env);
            let headers = wire_headers(&wire, &model, &Context::default(), &options, &token);
            let request = HttpRequest {
                url: wire.url(&model),
                headers: headers.into_pairs(),
                body: body.into(),
            };
            let mut call = SseCall::new(request, options.base());
            call.policy = policy;
            drive_sse(sink, call, cancel, decoder).await;
        })
    }

    /// The ADC target: project and location from the options or the
    /// environment.
    fn project_and_location(&self, options: &VertexOptions) -> Result<Target, VertexError> {
        let given = |value: &Option<String>| value.clone().filter(|v| !v.is_empty());
        let project = given(&options.project)
            .or_else(|| self.env.var("GOOGLE_CLOUD_PROJECT"))
            .or_else(|| self.env.var("GCLOUD_PROJECT"))
            .ok_or(VertexError::MissingProject)?;
        let location = given(&options.location)
            .or_else(|| self.env.var("GOOGLE_CLOUD_LOCATION"))
            .ok_or(VertexError::MissingLocation)?;
        Ok(Target::Project { project, location })
    }
}

/// Ends the stream with an authorization failure.
fn fail(sink: EventSink, error: &VertexError) {
    match error {
        VertexError::Aborted => sink.error(ErrorReason::Aborted, ABORTED_MESSAGE),
        error => sink.error_with_class(error.class(), error.to_string()),
    }
}

impl StreamFunction for VertexProvider {
    fn stream(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        self.stream_with(model, context, VertexOptions::from_stream(model, options))
    }

    fn stream_simple(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        self.stream_with(model, context, VertexOptions::from_simple(model, options))
    }
}
