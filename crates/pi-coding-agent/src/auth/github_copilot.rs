//! GitHub Copilot: GitHub's device flow (github.com or a GitHub Enterprise
//! domain), then the GitHub token is exchanged for a short-lived Copilot
//! token — the `access` pi stores, with the GitHub token as `refresh` and
//! the domain as `enterpriseUrl`. After a login pi enables every catalog
//! Copilot model's policy.

use std::time::Duration;

use base64::Engine;
use serde_json::Value;

use super::OAuthError;
use super::credentials::OAuthCredentials;
use super::flow::{AuthInfo, LoginCallbacks, OAuthEndpoints, Prompt};
use super::http;

/// The Copilot client id (pi keeps it base64-encoded).
const CLIENT_ID_B64: &str = "SXYxLmI1MDdhMDhjODdlY2ZlOTg=";
/// What pi's device-flow requests present themselves as.
const USER_AGENT: &str = "GitHubCopilotChat/0.35.0";
/// Headers every Copilot API request carries (the token exchange, the model
/// policy calls, and the model wires' requests).
pub const COPILOT_HEADERS: [(&str, &str); 4] = [
    ("User-Agent", "GitHubCopilotChat/0.35.0"),
    ("Editor-Version", "vscode/1.107.0"),
    ("Editor-Plugin-Version", "copilot-chat/0.35.0"),
    ("Copilot-Integration-Id", "vscode-chat"),
];
/// The Copilot API for individual accounts.
pub const DEFAULT_BASE_URL: &str = "https://api.individual.githubcopilot.com";
const INITIAL_POLL_MULTIPLIER: f64 = 1.2;
const SLOW_DOWN_POLL_MULTIPLIER: f64 = 1.4;
const EXPIRY_MARGIN_MS: i64 = 5 * 60 * 1000;

fn client_id() -> String {
    base64::engine::general_purpose::STANDARD
        .decode(CLIENT_ID_B64)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_default()
}

/// The host of a GitHub Enterprise URL or domain (`None` for blank or
/// unparsable input).
pub fn normalize_domain(input: &str) -> Option<String> {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return None;
    }
    let url = if trimmed.contains("://") {
        reqwest::Url::parse(trimmed)
    } else {
        reqwest::Url::parse(&format!("https://{trimmed}"))
    };
    url.ok()?.host_str().map(str::to_owned)
}

/// The Copilot API base URL: from the token's `proxy-ep=proxy.X` field
/// (`https://api.X`), else `https://copilot-api.<enterprise domain>`, else
/// the individual API. The Copilot wires send requests there (pi's
/// `modifyModels`).
pub fn base_url(token: Option<&str>, enterprise_domain: Option<&str>) -> String {
    let from_token = token.and_then(|t| {
        let proxy = t
            .split(';')
            .find_map(|part| part.strip_prefix("proxy-ep="))?;
        let host = proxy
            .strip_prefix("proxy.")
            .map_or_else(|| proxy.to_owned(), |rest| format!("api.{rest}"));
        (!host.is_empty()).then(|| format!("https://{host}"))
    });
    from_token
        .or_else(|| enterprise_domain.map(|d| format!("https://copilot-api.{d}")))
        .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned())
}

/// The Copilot base URL for stored credentials.
pub fn base_url_for(credentials: &OAuthCredentials) -> String {
    let domain = credentials
        .str_field("enterpriseUrl")
        .and_then(normalize_domain);
    base_url(Some(credentials.access()), domain.as_deref())
}

struct Urls {
    device_code: String,
    access_token: String,
    copilot_token: String,
}

fn urls(endpoints: &OAuthEndpoints, domain: &str) -> Urls {
    match &endpoints.github_base_url {
        Some(base) => Urls {
            device_code: format!("{base}/login/device/code"),
            access_token: format!("{base}/login/oauth/access_token"),
            copilot_token: format!("{base}/copilot_internal/v2/token"),
        },
        None => Urls {
            device_code: format!("https://{domain}/login/device/code"),
            access_token: format!("https://{domain}/login/oauth/access_token"),
            copilot_token: format!("https://api.{domain}/copilot_internal/v2/token"),
        },
    }
}

/// Logs in with the device flow: asks for an Enterprise domain, shows the
/// verification URL and code, polls until the user authorizes, exchanges
/// the GitHub token for a Copilot token, then enables the models.
pub async fn login(
    callbacks: &dyn LoginCallbacks,
    endpoints: &OAuthEndpoints,
) -> Result<OAuthCredentials, OAuthError> {
    let input = callbacks
        .on_prompt(&Prompt {
            message: "GitHub Enterprise URL/domain (blank for github.com)".to_owned(),
            placeholder: Some("company.ghe.com".to_owned()),
            allow_empty: true,
        })
        .await?;
    let enterprise = normalize_domain(&input);
    if !input.trim().is_empty() && enterprise.is_none() {
        return Err(OAuthError::InvalidEnterpriseDomain);
    }
    let domain = enterprise.as_deref().unwrap_or("github.com");
    let urls = urls(endpoints, domain);
    let device = start_device_flow(&urls).await?;
    callbacks.on_auth(&AuthInfo {
        url: device.verification_uri.clone(),
        instructions: Some(format!("Enter code: {}", device.user_code)),
    });
    let github_token = poll_for_token(&urls, &device, endpoints.poll_second).await?;
    let credentials = copilot_token(&urls, &github_token, enterprise.as_deref()).await?;
    callbacks.on_progress("Enabling models...");
    enable_models(&credentials, enterprise.as_deref(), endpoints).await;
    Ok(credentials)
}

/// Exchanges the stored GitHub token for a fresh Copilot token; a 401/403
/// (the GitHub token was revoked) is [`OAuthError::LoginExpired`].
pub async fn refresh(
    endpoints: &OAuthEndpoints,
    credentials: &OAuthCredentials,
) -> Result<OAuthCredentials, OAuthError> {
    let enterprise = credentials.str_field("enterpriseUrl");
    let urls = urls(endpoints, enterprise.unwrap_or("github.com"));
    copilot_token(&urls, credentials.refresh(), enterprise)
        .await
        .map_err(|e| http::refresh_error("github-copilot", e))
}

/// GitHub's device code answer.
#[derive(Debug)]
struct DeviceCode {
    device_code: String,
    user_code: String,
    verification_uri: String,
    interval: f64,
    expires_in: f64,
}

async fn start_device_flow(urls: &Urls) -> Result<DeviceCode, OAuthError> {
    let id = client_id();
    let form = [("client_id", id.as_str()), ("scope", "read:user")];
    let headers = [("Accept", "application/json"), ("User-Agent", USER_AGENT)];
    let reply = http::post_form("Device code request", &urls.device_code, &form, &headers).await?;
    if !reply.ok() {
        return Err(http::failed(
            "Device code request",
            &urls.device_code,
            &reply,
        ));
    }
    let data = reply.json("Device code request")?;
    match (
        data["device_code"].as_str(),
        data["user_code"].as_str(),
        data["verification_uri"].as_str(),
        data["interval"].as_f64(),
        data["expires_in"].as_f64(),
    ) {
        (Some(device_code), Some(user_code), Some(uri), Some(interval), Some(expires_in)) => {
            Ok(DeviceCode {
                device_code: device_code.to_owned(),
                user_code: user_code.to_owned(),
                verification_uri: uri.to_owned(),
                interval,
                expires_in,
            })
        }
        _ => Err(OAuthError::InvalidResponse(
            "Invalid device code response fields".to_owned(),
        )),
    }
}

/// Polls for the GitHub token as pi does: the first wait is 1.2 × the
/// interval (at least a second); `authorization_pending` polls again;
/// `slow_down` takes GitHub's new interval (or adds 5 s) and waits 1.4 × it.
async fn poll_for_token(
    urls: &Urls,
    device: &DeviceCode,
    second: Duration,
) -> Result<String, OAuthError> {
    let started = tokio::time::Instant::now();
    let deadline = started + second.mul_f64(device.expires_in.max(0.0));
    let mut interval = second.mul_f64(device.interval.max(1.0));
    let mut multiplier = INITIAL_POLL_MULTIPLIER;
    let mut slow_downs = 0u32;
    let id = client_id();
    let form = [
        ("client_id", id.as_str()),
        ("device_code", device.device_code.as_str()),
        ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
    ];
    let headers = [("Accept", "application/json"), ("User-Agent", USER_AGENT)];
    loop {
        let now = tokio::time::Instant::now();
        if now >= deadline {
            break;
        }
        tokio::time::sleep(interval.mul_f64(multiplier).min(deadline - now)).await;
        let reply =
            http::post_form("Device token request", &urls.access_token, &form, &headers).await?;
        if !reply.ok() {
            return Err(http::failed(
                "Device token request",
                &urls.access_token,
                &reply,
            ));
        }
        let data = reply.json("Device token request")?;
        if let Some(token) = data["access_token"].as_str() {
            return Ok(token.to_owned());
        }
        match data["error"].as_str() {
            Some("authorization_pending") | None => {}
            Some("slow_down") => {
                slow_downs += 1;
                interval = match data["interval"].as_f64() {
                    Some(seconds) if seconds > 0.0 => second.mul_f64(seconds),
                    _ => (interval + second * 5).max(second),
                };
                multiplier = SLOW_DOWN_POLL_MULTIPLIER;
            }
            Some(error) => {
                return Err(OAuthError::DeviceFlow {
                    error: error.to_owned(),
                    description: data["error_description"]
                        .as_str()
                        .filter(|d| !d.is_empty())
                        .map(str::to_owned),
                });
            }
        }
    }
    Err(OAuthError::DeviceFlowTimedOut {
        slow_down: slow_downs > 0,
    })
}

/// `GET copilot_internal/v2/token` with the GitHub token.
async fn copilot_token(
    urls: &Urls,
    github_token: &str,
    enterprise: Option<&str>,
) -> Result<OAuthCredentials, OAuthError> {
    let url = &urls.copilot_token;
    let reply = http::send("Copilot token request", url, |c| {
        let mut request = c
            .get(url)
            .header("Accept", "application/json")
            .header("Authorization", format!("Bearer {github_token}"));
        for (name, value) in COPILOT_HEADERS {
            request = request.header(name, value);
        }
        request
    })
    .await?;
    if !reply.ok() {
        return Err(http::failed("Copilot token request", url, &reply));
    }
    let data = reply.json("Copilot token request")?;
    let (Some(token), Some(expires_at)) = (data["token"].as_str(), data["expires_at"].as_f64())
    else {
        return Err(OAuthError::InvalidResponse(
            "Invalid Copilot token response fields".to_owned(),
        ));
    };
    let mut credentials = OAuthCredentials::new(
        github_token,
        token,
        (expires_at * 1000.0) as i64 - EXPIRY_MARGIN_MS,
    );
    if let Some(domain) = enterprise {
        credentials.set("enterpriseUrl", Value::from(domain));
    }
    Ok(credentials)
}

/// Enables each catalog Copilot model's policy (some models, such as
/// Claude's, need it); failures are ignored, as in pi.
async fn enable_models(
    credentials: &OAuthCredentials,
    enterprise: Option<&str>,
    endpoints: &OAuthEndpoints,
) {
    let base = endpoints
        .copilot_api_base_url
        .clone()
        .unwrap_or_else(|| base_url(Some(credentials.access()), enterprise));
    let token = credentials.access();
    let calls = pi_ai::get_models("github-copilot")
        .into_iter()
        .map(|model| {
            let url = format!("{base}/models/{}/policy", model.id);
            async move {
                let result = http::send("Copilot model policy", &url, |c| {
                    let mut request = c
                        .post(&url)
                        .header("Content-Type", "application/json")
                        .header("Authorization", format!("Bearer {token}"));
                    for (name, value) in COPILOT_HEADERS {
                        request = request.header(name, value);
                    }
                    request
                        .header("openai-intent", "chat-policy")
                        .header("x-interaction-type", "chat-policy")
                        .body(r#"{"state":"enabled"}"#)
                })
                .await;
                if !result.as_ref().is_ok_and(http::Reply::ok) {
                    tracing::debug!("could not enable Copilot model {}", model.id);
                }
            }
        });
    futures::future::join_all(calls).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_and_base_urls_as_pi() {
        assert_eq!(normalize_domain(""), None);
        assert_eq!(
            normalize_domain(" company.ghe.com ").as_deref(),
            Some("company.ghe.com")
        );
        assert_eq!(
            normalize_domain("https://company.ghe.com/some/path").as_deref(),
            Some("company.ghe.com")
        );
        assert_eq!(normalize_domain("http://[bad"), None);
        assert_eq!(
            base_url(
                Some("tid=1;exp=2;proxy-ep=proxy.business.githubcopilot.com;x=y"),
                None
            ),
            "https://api.business.githubcopilot.com"
        );
        assert_eq!(
            base_url(Some("tid=1"), Some("company.ghe.com")),
            "https://copilot-api.company.ghe.com"
        );
        assert_eq!(base_url(None, None), DEFAULT_BASE_URL);
    }
}
