//! Where an Azure call goes, as pi's `resolveAzureConfig` decides it: the
//! base URL (option, `AZURE_OPENAI_BASE_URL`, `AZURE_OPENAI_RESOURCE_NAME`,
//! the model's), the api version (option, `AZURE_OPENAI_API_VERSION`, `v1`)
//! and the deployment name (option, `AZURE_OPENAI_DEPLOYMENT_NAME_MAP`, the
//! model id).

use std::collections::HashMap;

use pi_ai::Model;
use url::Url;

use crate::options::AzureOpenAiResponsesOptions;

/// The api version pi sends when none is configured.
pub const DEFAULT_API_VERSION: &str = "v1";

/// Why no endpoint could be resolved (pi's texts).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AzureConfigError {
    /// No base URL anywhere.
    #[error(
        "Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, or pass azureBaseUrl, azureResourceName, or model.baseUrl."
    )]
    MissingBaseUrl,
    /// The base URL does not parse.
    #[error("Invalid Azure OpenAI base URL: {0}")]
    InvalidBaseUrl(String),
}

/// The Azure environment variables pi reads (unset and empty alike are `None`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AzureEnv {
    /// `AZURE_OPENAI_BASE_URL`.
    pub base_url: Option<String>,
    /// `AZURE_OPENAI_RESOURCE_NAME`.
    pub resource_name: Option<String>,
    /// `AZURE_OPENAI_API_VERSION`.
    pub api_version: Option<String>,
    /// `AZURE_OPENAI_DEPLOYMENT_NAME_MAP` (`model=deployment,...`).
    pub deployment_name_map: Option<String>,
}

impl AzureEnv {
    /// The variables of this process.
    pub fn from_process() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        Self {
            base_url: var("AZURE_OPENAI_BASE_URL"),
            resource_name: var("AZURE_OPENAI_RESOURCE_NAME"),
            api_version: var("AZURE_OPENAI_API_VERSION"),
            deployment_name_map: var("AZURE_OPENAI_DEPLOYMENT_NAME_MAP"),
        }
    }
}

/// A resolved endpoint: base URL and api version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AzureConfig {
    /// The normalized base URL (no trailing slash).
    pub base_url: String,
    /// The `api-version` query value.
    pub api_version: String,
}

fn non_empty(value: Option<&str>) -> Option<&str> {
    value.filter(|v| !v.is_empty())
}

fn trimmed(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

impl AzureConfig {
    /// pi's `resolveAzureConfig` for a call of `model` with `options`.
    pub fn resolve(
        model: &Model,
        options: &AzureOpenAiResponsesOptions,
        env: &AzureEnv,
    ) -> Result<Self, AzureConfigError> {
        let api_version = non_empty(options.api_version.as_deref())
            .or(non_empty(env.api_version.as_deref()))
            .unwrap_or(DEFAULT_API_VERSION)
            .to_owned();
        let base_url = trimmed(options.base_url.as_deref())
            .or_else(|| trimmed(env.base_url.as_deref()))
            .map(str::to_owned)
            .or_else(|| {
                non_empty(options.resource_name.as_deref())
                    .or(non_empty(env.resource_name.as_deref()))
                    .map(|name| format!("https://{name}.openai.azure.com/openai/v1"))
            })
            .or_else(|| non_empty(Some(model.base_url.as_str())).map(str::to_owned))
            .ok_or(AzureConfigError::MissingBaseUrl)?;
        Ok(Self {
            base_url: normalize_base_url(&base_url)?,
            api_version,
        })
    }

    /// The endpoint pi's client POSTs to: `{base}/responses?api-version=..`.
    pub fn responses_url(&self) -> String {
        format!(
            "{}/responses?api-version={}",
            self.base_url,
            encode_uri_component(&self.api_version)
        )
    }
}

/// pi's `normalizeAzureBaseUrl`: trailing slashes dropped, and an Azure
/// host (`*.openai.azure.com`, `*.cognitiveservices.azure.com`) with no path
/// or `/openai` gets `/openai/v1` (and loses its query).
pub fn normalize_base_url(base_url: &str) -> Result<String, AzureConfigError> {
    let trimmed = base_url.trim().trim_end_matches('/');
    let mut url =
        Url::parse(trimmed).map_err(|_| AzureConfigError::InvalidBaseUrl(base_url.to_owned()))?;
    let azure_host = url.host_str().is_some_and(|host| {
        host.ends_with(".openai.azure.com") || host.ends_with(".cognitiveservices.azure.com")
    });
    let path = url.path().trim_end_matches('/');
    if azure_host && matches!(path, "" | "/openai") {
        url.set_path("/openai/v1");
        url.set_query(None);
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// pi's `parseDeploymentNameMap`: comma-separated `model=deployment` pairs,
/// trimmed; entries without both parts are skipped; a later entry wins.
pub fn parse_deployment_name_map(value: &str) -> HashMap<String, String> {
    let mut map = HashMap::new();
    for entry in value.split(',') {
        let entry = entry.trim();
        // JavaScript's `split("=", 2)`: the first two pieces, the rest dropped.
        let mut pieces = entry.split('=');
        let (Some(model), Some(deployment)) = (pieces.next(), pieces.next()) else {
            continue;
        };
        if model.is_empty() || deployment.is_empty() {
            continue;
        }
        map.insert(model.trim().to_owned(), deployment.trim().to_owned());
    }
    map
}

/// pi's `resolveDeploymentName`: the option, else the model's entry of the
/// map, else the model id.
pub(crate) fn deployment_name(
    model: &Model,
    options: &AzureOpenAiResponsesOptions,
    env: &AzureEnv,
) -> String {
    if let Some(name) = non_empty(options.deployment_name.as_deref()) {
        return name.to_owned();
    }
    env.deployment_name_map
        .as_deref()
        .and_then(|map| parse_deployment_name_map(map).remove(model.id.as_str()))
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| model.id.clone())
}

/// JavaScript's `encodeURIComponent`, as the OpenAI client writes query values.
fn encode_uri_component(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
