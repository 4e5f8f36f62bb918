//! SigV4 request signing with AWS's own `aws-sigv4` crate: the signature,
//! `x-amz-date`, `x-amz-security-token` and (as the SDK sends for Bedrock)
//! `x-amz-content-sha256` are added to the request's headers.

use std::time::SystemTime;

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{
    PayloadChecksumKind, PercentEncodingMode, SignableBody, SignableRequest, SigningSettings, sign,
};
use aws_sigv4::sign::v4;
use aws_smithy_runtime_api::client::identity::Identity;
use pi_http::HttpRequest;

use crate::credentials::AwsCredentials;

/// The service name Bedrock runtime requests are signed for.
pub const BEDROCK_SERVICE: &str = "bedrock";

/// What to sign for: service, region and the service's canonical rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SigningScope<'a> {
    /// The signing name (`bedrock`).
    pub service: &'a str,
    /// The region.
    pub region: &'a str,
    /// Encode the already-encoded path again in the canonical request (every
    /// service but S3; Bedrock's model ids carry `%3A`).
    pub double_encode_path: bool,
    /// Send and sign `x-amz-content-sha256` (the SDK does for Bedrock).
    pub content_sha256_header: bool,
}

impl<'a> SigningScope<'a> {
    /// Bedrock runtime in `region`.
    pub fn bedrock(region: &'a str) -> Self {
        Self {
            service: BEDROCK_SERVICE,
            region,
            double_encode_path: true,
            content_sha256_header: true,
        }
    }
}

/// Why a request could not be signed.
#[derive(Debug, thiserror::Error)]
pub enum SignError {
    /// The URL has no scheme or host.
    #[error("the request URL {0:?} is not a valid http(s) URL; check the provider's baseUrl")]
    Url(String),
    /// The signer refused the request.
    #[error("could not sign the request: {0}")]
    Signer(String),
}

/// Signs `request` (POST) at `time`, adding the signing headers and
/// replacing any of the same name.
pub fn sign_request(
    request: &mut HttpRequest,
    credentials: &AwsCredentials,
    scope: SigningScope<'_>,
    time: SystemTime,
) -> Result<(), SignError> {
    sign_with_method("POST", request, credentials, scope, time)
}

/// [`sign_request`] for any method (the test vectors include `GET`).
pub fn sign_with_method(
    method: &str,
    request: &mut HttpRequest,
    credentials: &AwsCredentials,
    scope: SigningScope<'_>,
    time: SystemTime,
) -> Result<(), SignError> {
    let parsed = url::Url::parse(&request.url).map_err(|_| SignError::Url(request.url.clone()))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(SignError::Url(request.url.clone()));
    }
    let identity: Identity = Credentials::new(
        credentials.access_key_id.clone(),
        credentials.secret_access_key.clone(),
        credentials.session_token.clone(),
        None,
        "pi-rs",
    )
    .into();
    let mut settings = SigningSettings::default();
    settings.percent_encoding_mode = if scope.double_encode_path {
        PercentEncodingMode::Double
    } else {
        PercentEncodingMode::Single
    };
    settings.payload_checksum_kind = if scope.content_sha256_header {
        PayloadChecksumKind::XAmzSha256
    } else {
        PayloadChecksumKind::NoHeader
    };
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(scope.region)
        .name(scope.service)
        .time(time)
        .settings(settings)
        .build()
        .map_err(|e| SignError::Signer(e.to_string()))?
        .into();
    let signable = SignableRequest::new(
        method,
        request.url.as_str(),
        request
            .headers
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str())),
        SignableBody::Bytes(&request.body),
    )
    .map_err(|e| SignError::Signer(e.to_string()))?;
    let (instructions, _signature) = sign(signable, &params)
        .map_err(|e| SignError::Signer(e.to_string()))?
        .into_parts();
    let (headers, _params) = instructions.into_parts();
    for header in headers {
        let name = header.name();
        request
            .headers
            .retain(|(existing, _)| !existing.eq_ignore_ascii_case(name));
        request
            .headers
            .push((name.to_owned(), header.value().to_owned()));
    }
    Ok(())
}

#[cfg(test)]
#[path = "sigv4_tests.rs"]
mod tests;
