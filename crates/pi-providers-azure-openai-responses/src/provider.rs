//! The `azure-openai-responses` wire over `pi-http`: each call resolves its
//! endpoint ([`Wire::resolve`]) before [`pi_http::stream_wire`] sends it.

use pi_ai::{ContextRef, Model};
use pi_http::{Headers, Wire, WireError, WireHeaders, WireProvider};

use crate::config::{AzureConfig, AzureEnv, deployment_name};
use crate::decode::AzureOpenAiResponsesDecoder;
use crate::options::AzureOpenAiResponsesOptions;
use crate::request::build_request_body;
use crate::wire::RequestBody;

/// The `azure-openai-responses` stream function: [`AzureOpenAiResponsesWire`]
/// over `pi-http` (a missing or invalid base URL ends the stream with pi's
/// error, after a missing key).
pub type AzureOpenAiResponsesProvider = WireProvider<AzureOpenAiResponsesWire>;

/// The `azure-openai-responses` wire (pi's `streamAzureOpenAIResponses`),
/// bound to one endpoint URL once a call resolves it.
#[derive(Debug, Clone, Default)]
pub struct AzureOpenAiResponsesWire {
    /// `{base}/responses?api-version=..`; when unset, [`Wire::resolve`]
    /// resolves it from the call's options, the environment and the model.
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

    /// Resolves the deployment name (option, `AZURE_OPENAI_DEPLOYMENT_NAME_MAP`,
    /// model id) and, unless the wire has one, the endpoint (pi's
    /// `resolveAzureConfig`, whose error ends the call).
    fn resolve(
        &self,
        model: &Model,
        options: &mut AzureOpenAiResponsesOptions,
    ) -> Result<Self, WireError> {
        let env = AzureEnv::from_process();
        options.deployment_name = Some(deployment_name(model, options, &env));
        let endpoint = match &self.endpoint {
            Some(endpoint) => endpoint.clone(),
            None => AzureConfig::resolve(model, options, &env)
                .map_err(WireError::call)?
                .responses_url(),
        };
        Ok(Self::at(endpoint))
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
