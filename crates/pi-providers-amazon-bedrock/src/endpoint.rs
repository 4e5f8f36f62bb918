//! Where a call goes and which region signs it, as pi resolves them before
//! creating its `BedrockRuntimeClient`: a configured region (option,
//! `AWS_REGION`, `AWS_DEFAULT_REGION`) or `AWS_PROFILE` makes a standard
//! `bedrock-runtime.<region>.amazonaws.com` base URL follow the configured
//! region; any other base URL (a proxy, a VPC endpoint, a test server) is
//! used as it is. The model id is one encoded path segment.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use pi_ai::Model;

use crate::credentials::{profile_name, profile_region};
use crate::env::AwsEnvironment;
use crate::options::BedrockOptions;

/// Everything but RFC 3986's unreserved characters (the SDK's
/// `extendedEncodeURIComponent`).
const PATH_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// The endpoint and signing region of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The base URL requests go to.
    pub endpoint: String,
    /// The signing region.
    pub region: String,
}

/// No region could be found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Region is missing: set AWS_REGION (or AWS_DEFAULT_REGION), or a region for AWS profile \"{profile}\" in {config}"
)]
pub struct RegionError {
    /// The profile looked at.
    pub profile: String,
    /// The config file looked at.
    pub config: String,
}

/// The region a `bedrock-runtime[-fips].<region>.amazonaws.com[.cn]` base
/// URL names.
pub fn standard_endpoint_region(base_url: &str) -> Option<String> {
    let url = url::Url::parse(base_url).ok()?;
    let host = url.host_str()?.to_lowercase();
    let rest = host
        .strip_prefix("bedrock-runtime-fips.")
        .or_else(|| host.strip_prefix("bedrock-runtime."))?;
    let region = rest
        .strip_suffix(".amazonaws.com.cn")
        .or_else(|| rest.strip_suffix(".amazonaws.com"))?;
    let valid = !region.is_empty()
        && region
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    valid.then(|| region.to_owned())
}

/// The configured region: option, `AWS_REGION`, `AWS_DEFAULT_REGION`.
pub fn configured_region(options: &BedrockOptions, env: &AwsEnvironment) -> Option<String> {
    options
        .region
        .clone()
        .filter(|r| !r.is_empty())
        .or_else(|| env.var("AWS_REGION"))
        .or_else(|| env.var("AWS_DEFAULT_REGION"))
}

/// Resolves the endpoint and region of a call to `model`.
pub fn resolve_target(
    model: &Model,
    options: &BedrockOptions,
    env: &AwsEnvironment,
) -> Result<Target, RegionError> {
    let configured = configured_region(options, env);
    let has_profile = env.var("AWS_PROFILE").is_some();
    let endpoint_region = standard_endpoint_region(&model.base_url);
    let explicit = endpoint_region.is_none() || (configured.is_none() && !has_profile);
    let region = match (configured, &endpoint_region) {
        (Some(region), _) => region,
        (None, Some(region)) if explicit => region.clone(),
        (None, _) if !has_profile => "us-east-1".to_owned(),
        (None, _) => {
            let profile = profile_name(options, env);
            profile_region(&profile, env).ok_or_else(|| RegionError {
                config: env
                    .config_file()
                    .map_or_else(|| "~/.aws/config".to_owned(), |p| p.display().to_string()),
                profile,
            })?
        }
    };
    let endpoint = if explicit {
        model.base_url.trim_end_matches('/').to_owned()
    } else {
        let suffix = if region.starts_with("cn-") {
            "amazonaws.com.cn"
        } else {
            "amazonaws.com"
        };
        format!("https://bedrock-runtime.{region}.{suffix}")
    };
    Ok(Target { endpoint, region })
}

/// `{endpoint}/model/{modelId}/converse-stream`, the id encoded as one segment.
pub fn converse_stream_url(endpoint: &str, model_id: &str) -> String {
    format!(
        "{}/model/{}/converse-stream",
        endpoint.trim_end_matches('/'),
        utf8_percent_encode(model_id, PATH_SEGMENT)
    )
}

#[cfg(test)]
#[path = "endpoint_tests.rs"]
mod tests;
