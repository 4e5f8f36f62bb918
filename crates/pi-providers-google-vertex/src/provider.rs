//! The `google-vertex` wire over `pi-http`. [`VertexWire`] picks each
//! call's mode as pi does ([`Wire::resolve`]) and authorizes it:
//!
//! 1. An API key (`options.apiKey`, else `GOOGLE_CLOUD_API_KEY`, trimmed;
//!    pi's `gcp-vertex-credentials` marker and `<...>` placeholders such as
//!    `<authenticated>` do not count) goes in `x-goog-api-key`.
//! 2. Otherwise Application Default Credentials: a project (`options`,
//!    `GOOGLE_CLOUD_PROJECT`, `GCLOUD_PROJECT`) and a location (`options`,
//!    `GOOGLE_CLOUD_LOCATION`) are required, and [`Wire::prepare`] finds the
//!    credentials file and fetches an access token (cached, see
//!    [`TokenCache`]) after the `on_payload` hook, as pi's client does, before
//!    the request is sent with `authorization: Bearer`.

use std::sync::Arc;

use pi_ai::{ContextRef, Model, StreamOptions};
use pi_http::{
    Headers, HttpRequest, RetryPolicy, Wire, WireError, WireHeaders, WireOptions, WireProvider,
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

/// The `google-vertex` stream function: [`VertexWire`] over `pi-http`.
pub type VertexProvider = WireProvider<VertexWire>;

/// The `google-vertex` wire: the environment it reads, the token cache it
/// uses, and (once [`Wire::resolve`] picked it) the call's target. The
/// default reads the process environment and uses the process-wide cache.
#[derive(Debug, Clone)]
pub struct VertexWire {
    env: VertexEnv,
    tokens: Arc<TokenCache>,
    target: Target,
}

impl Default for VertexWire {
    fn default() -> Self {
        Self::new()
    }
}

impl VertexWire {
    /// Reads the process environment; tokens in the process-wide cache.
    pub fn new() -> Self {
        Self {
            env: VertexEnv::process(),
            tokens: TokenCache::global(),
            target: Target::ApiKey,
        }
    }

    /// Reads only `env`, with a token cache of its own.
    pub fn with_env(env: VertexEnv) -> Self {
        Self {
            env,
            tokens: Arc::new(TokenCache::new()),
            target: Target::ApiKey,
        }
    }

    /// The call's target: API key, or project and location (ADC).
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// The API key of a call, as pi's `resolveApiKey` finds it.
    pub fn key(&self, options: &StreamOptions) -> Option<String> {
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

    /// ADC: the credentials file, its access token and quota project, set
    /// on `request` unless the model or the call sent a header of the same
    /// name (as in pi's SDK), where the wire's own headers would be.
    async fn authorize(
        &self,
        options: &VertexOptions,
        request: &mut HttpRequest,
    ) -> Result<(), VertexError> {
        let (path, credentials) = find_credentials(&self.env).await?;
        let source = path.display().to_string();
        let cancel = &options.base().cancel;
        let token = self
            .tokens
            .access_token(&credentials, &source, cancel)
            .await?;
        let own = [
            Some(("authorization", format!("Bearer {token}"))),
            credentials
                .quota_project(&self.env)
                .map(|project| ("x-goog-user-project", project)),
        ];
        let mut at = 1.min(request.headers.len());
        for (name, value) in own.into_iter().flatten() {
            if !request
                .headers
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case(name))
            {
                request.headers.insert(at, (name.to_owned(), value));
                at += 1;
            }
        }
        Ok(())
    }
}

impl Wire for VertexWire {
    type Options = VertexOptions;
    type Body<'a> = GenerateContentRequest<'a>;
    type Decoder = VertexDecoder;

    /// The key of [`VertexWire::key`]; an empty key (none) means ADC.
    fn api_key(&self, _model: &Model, options: &StreamOptions) -> Result<String, WireError> {
        Ok(self.key(options).unwrap_or_default())
    }

    /// Picks the mode: the API key, else ADC with a project and a location
    /// (whose absence ends the call with pi's error).
    fn resolve(&self, _model: &Model, options: &mut VertexOptions) -> Result<Self, WireError> {
        let target = match options.base().api_key.as_deref() {
            Some(key) if !key.is_empty() => Target::ApiKey,
            _ => self
                .project_and_location(options)
                .map_err(WireError::call)?,
        };
        Ok(Self {
            target,
            ..self.clone()
        })
    }

    /// The streaming URL, built by the rules of this crate's `endpoint` module.
    fn url(&self, model: &Model) -> String {
        stream_url(
            &model.base_url,
            self.env.trimmed("GOOGLE_VERTEX_BASE_URL").as_deref(),
            &model.id,
            &self.target,
        )
    }

    /// `content-type`, then the key (`x-goog-api-key`); with ADC the access
    /// token follows in [`Wire::prepare`]. As in pi's SDK, a header of the
    /// same name from the model or the call wins.
    fn headers(
        &self,
        _model: &Model,
        _context: ContextRef<'_>,
        _options: &VertexOptions,
        api_key: &str,
    ) -> WireHeaders {
        let mut base = Headers::new();
        base.set("content-type", "application/json");
        if self.target == Target::ApiKey {
            base.set(API_KEY_HEADER, api_key);
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

    /// With ADC, the access token (and quota project): a failure ends the
    /// call with its class (auth, or `aborted` when cancelled meanwhile).
    async fn prepare(
        &self,
        _model: &Model,
        options: &VertexOptions,
        request: &mut HttpRequest,
    ) -> Result<(), WireError> {
        if self.target == Target::ApiKey {
            return Ok(());
        }
        self.authorize(options, request).await.map_err(|error| {
            let class = error.class();
            WireError::classed(error, class)
        })
    }
}
