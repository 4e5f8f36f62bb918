//! Options of an azure-openai-responses call (pi's `AzureOpenAIResponsesOptions`).

use pi_ai::{Model, SimpleStreamOptions, StreamOptions, ThinkingLevel};
use pi_http::WireOptions;
use pi_providers_openai_responses::{OpenAiResponsesOptions, ReasoningSummary};

/// Options of one Azure call: the common options, reasoning, and where the
/// deployment is (each Azure field overrides its environment variable).
#[derive(Debug, Clone, Default)]
pub struct AzureOpenAiResponsesOptions {
    /// Options every provider takes.
    pub base: StreamOptions,
    /// Reasoning effort; `None` turns reasoning off.
    pub reasoning_effort: Option<ThinkingLevel>,
    /// Reasoning summary mode (`auto` when only an effort is given).
    pub reasoning_summary: Option<ReasoningSummary>,
    /// pi's `azureApiVersion` (else `AZURE_OPENAI_API_VERSION`, else `v1`).
    pub api_version: Option<String>,
    /// pi's `azureResourceName` (else `AZURE_OPENAI_RESOURCE_NAME`).
    pub resource_name: Option<String>,
    /// pi's `azureBaseUrl` (else `AZURE_OPENAI_BASE_URL`).
    pub base_url: Option<String>,
    /// pi's `azureDeploymentName` (else `AZURE_OPENAI_DEPLOYMENT_NAME_MAP`,
    /// else the model id); filled in by [`pi_http::Wire::prepare`].
    pub deployment_name: Option<String>,
}

impl WireOptions for AzureOpenAiResponsesOptions {
    fn base(&self) -> &StreamOptions {
        &self.base
    }

    fn base_mut(&mut self) -> &mut StreamOptions {
        &mut self.base
    }

    /// pi's `streamSimpleAzureOpenAIResponses`: as openai-responses,
    /// `maxTokens` defaults to `min(model.maxTokens, 32000)` and the level is
    /// clamped to what the model supports (`off` sends no effort).
    fn from_simple(model: &Model, options: SimpleStreamOptions) -> Self {
        let responses = OpenAiResponsesOptions::from_simple(model, options);
        Self {
            base: responses.base,
            reasoning_effort: responses.reasoning_effort,
            ..Self::default()
        }
    }
}
