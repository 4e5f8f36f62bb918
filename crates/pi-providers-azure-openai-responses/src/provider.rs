//! The `azure-openai-responses` wire over `pi-http`, and the provider that
//! resolves each call's endpoint before handing it to [`pi_http::stream_wire`].

use std::sync::Arc;

use pi_ai::{
    Api, AssistantMessage, AssistantMessageEventStream, ContextRef, Model, SimpleStreamOptions,
    StreamFunction, StreamOptions, now_ms, register_api_provider,
};
use pi_http::{
    Headers, RetryPolicy, Wire, WireHeaders, WireOptions, WireProvider, resolve_api_key,
};

use crate::config::{AzureConfig, AzureEnv, deployment_name};
use crate::decode::AzureOpenAiResponsesDecoder;
use crate::options::AzureOpenAiResponsesOptions;
use crate::request::build_request_body;
use crate::wire::RequestBody;

/// The `azure-openai-responses` wire (pi's `streamAzureOpenAIResponses`),
/// bound to one endpoint URL.
#[derive(Debug, Clone, Default)]
pub struct AzureOpenAiResponsesWire {
    /// `{base}/responses?api-version=..`; when unset, resolved from the
    /// environment and the model at [`Wire::url`].
    endpoint: Option<String>,
}

impl AzureOpenAiResponsesWire {
    /// The wire posting to `endpoint`.
    pub fn at(endpoint: String) -> Self {
        Self {
            endpoint: Some(endpoint),
        }
    }
}

impl Wire for AzureOpenAiResponsesWire {
    type Options = AzureOpenAiResponsesOptions;
    type Body<'a> = RequestBody<'a>;
    type Decoder = AzureOpenAiResponsesDecoder;

    /// Resolves the deployment name (option, `AZURE_OPENAI_DEPLOYMENT_NAME_MAP`, model id).
    fn prepare(&self, model: &Model, options: &mut AzureOpenAiResponsesOptions) {
        options.deployment_name = Some(deployment_name(model, options, &AzureEnv::from_process()));
    }

    fn url(&self, model: &Model) -> String {
        match &self.endpoint {
            Some(endpoint) => endpoint.clone(),
            None => AzureConfig::resolve(
                model,
                &AzureOpenAiResponsesOptions::default(),
                &AzureEnv::from_process(),
            )
            .map(|config| config.responses_url())
            .unwrap_or_default(),
        }
    }

    /// As the `AzureOpenAI` client sends them: `accept` and `api-key`, the
    /// model's and the call's headers, then `content-type`.
    fn headers(
        &self,
        _model: &Model,
        _context: ContextRef<'_>,
        _options: &AzureOpenAiResponsesOptions,
        api_key: &str,
    ) -> WireHeaders {
        let mut base = Headers::new();
        base.set("accept", "application/json");
        base.set("api-key", api_key);
        let mut fixed = Headers::new();
        fixed.set("content-type", "application/json");
        WireHeaders {
            base,
            after_model: Headers::new(),
            fixed,
        }
    }

    fn body<'a>(
        &self,
        model: &'a Model,
        context: ContextRef<'a>,
        options: &'a AzureOpenAiResponsesOptions,
    ) -> RequestBody<'a> {
        build_request_body(model, context, options)
    }

    fn decoder(
        &self,
        model: &Model,
        _context: ContextRef<'_>,
        _options: &AzureOpenAiResponsesOptions,
        _api_key: &str,
    ) -> AzureOpenAiResponsesDecoder {
        AzureOpenAiResponsesDecoder::new(model.clone())
    }
}

/// The `azure-openai-responses` stream function: resolves the endpoint
/// (pi's `resolveAzureConfig`; a missing or invalid base URL ends the
/// stream with pi's error), then runs [`AzureOpenAiResponsesWire`] over `pi-http`.
#[derive(Debug, Clone, Copy, Default)]
pub struct AzureOpenAiResponsesProvider {
    retry_policy: Option<RetryPolicy>,
}

impl AzureOpenAiResponsesProvider {
    /// The provider with the transport's default retries.
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
        options: AzureOpenAiResponsesOptions,
    ) -> AssistantMessageEventStream {
        let context = context.into();
        // A missing key is reported first (by the transport), as in pi.
        let endpoint = if resolve_api_key(model, options.base()).is_some() {
            match AzureConfig::resolve(model, &options, &AzureEnv::from_process()) {
                Ok(config) => Some(config.responses_url()),
                Err(error) => {
                    let initial = AssistantMessage::empty(
                        model.api.clone(),
                        model.provider.clone(),
                        model.id.clone(),
                        now_ms(),
                    );
                    return AssistantMessageEventStream::failed(initial, error.to_string());
                }
            }
        } else {
            None
        };
        let wire = AzureOpenAiResponsesWire { endpoint };
        let mut provider = WireProvider::of(wire);
        if let Some(policy) = self.retry_policy {
            provider = provider.with_retry_policy(policy);
        }
        provider.stream_with(model, context, options)
    }

    /// Registers this provider for `api` in pi's global api registry.
    pub fn register(self, api: Api, source_id: &str) {
        register_api_provider(api, Arc::new(self), source_id);
    }
}

impl StreamFunction for AzureOpenAiResponsesProvider {
    fn stream(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        self.stream_with(
            model,
            context,
            AzureOpenAiResponsesOptions::from_stream(model, options),
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
            AzureOpenAiResponsesOptions::from_simple(model, options),
        )
    }
}
