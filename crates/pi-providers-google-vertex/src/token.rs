//! OAuth access tokens for Application Default Credentials, as
//! google-auth-library gets them: a service account signs an RS256 JWT
//! (`iss`, `scope`, `aud`, `exp` = `iat` + 1 h) and exchanges it with the
//! `jwt-bearer` grant; an authorized user exchanges its refresh token.
//! Tokens are cached per credential and reused until five minutes before
//! they expire; concurrent calls wait for one refresh.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use pi_ai::ErrorClass;
use pi_http::{DEFAULT_FIRST_BYTE_TIMEOUT, HttpClient, HttpError, HttpRequest, RetryPolicy};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::credentials::{AuthorizedUser, Credentials, GOOGLE_TOKEN_URL, ServiceAccount};
use crate::error::VertexError;

/// The scope the Google Gen AI SDK asks for.
pub const CLOUD_PLATFORM_SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";

/// The grant type of a service-account JWT.
pub const JWT_BEARER_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// A token closer than this to its expiry is refreshed first.
pub const EAGER_REFRESH: Duration = Duration::from_secs(5 * 60);

/// How long a service-account JWT is valid.
const JWT_LIFETIME_SECS: u64 = 3600;

/// The claims of a service-account JWT, in pi's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JwtClaims {
    /// The service account.
    pub iss: String,
    /// The requested scope.
    pub scope: String,
    /// Google's token endpoint (google-auth-library always uses it).
    pub aud: String,
    /// Expiry, seconds since the epoch.
    pub exp: u64,
    /// Issue time, seconds since the epoch.
    pub iat: u64,
}

/// A fetched access token.
#[derive(Debug, Clone)]
struct AccessToken {
    token: String,
    expires_at: Instant,
}

type Slot = Arc<tokio::sync::Mutex<Option<AccessToken>>>;

/// Access tokens by credential.
#[derive(Debug, Default)]
pub struct TokenCache {
    slots: Mutex<HashMap<Credentials, Slot>>,
}

impl TokenCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The process-wide cache the registered provider uses.
    pub fn global() -> Arc<Self> {
        static GLOBAL: OnceLock<Arc<TokenCache>> = OnceLock::new();
        Arc::clone(GLOBAL.get_or_init(|| Arc::new(Self::new())))
    }

    /// A valid access token for `credentials`: the cached one while it is
    /// more than [`EAGER_REFRESH`] from expiry, else a new one (one
    /// request however many calls wait for it).
    pub async fn access_token(
        &self,
        credentials: &Credentials,
        source: &str,
        cancel: &CancellationToken,
    ) -> Result<String, VertexError> {
        let slot = {
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(slots.entry(credentials.clone()).or_default())
        };
        let mut cached = slot.lock().await;
        if let Some(token) = cached.as_ref()
            && token.expires_at > Instant::now() + EAGER_REFRESH
        {
            return Ok(token.token.clone());
        }
        let fresh = fetch(credentials, source, cancel).await?;
        let token = fresh.token.clone();
        *cached = Some(fresh);
        Ok(token)
    }
}

/// Asks the token endpoint for a new token.
async fn fetch(
    credentials: &Credentials,
    source: &str,
    cancel: &CancellationToken,
) -> Result<AccessToken, VertexError> {
    let form = match credentials {
        Credentials::ServiceAccount(sa) => {
            let assertion = sign_jwt(sa, unix_now(), source)?;
            encode_form(&[("grant_type", JWT_BEARER_GRANT), ("assertion", &assertion)])
        }
        Credentials::AuthorizedUser(user) => refresh_form(user),
    };
    let url = credentials.token_url().to_owned();
    tracing::debug!(%url, "fetching a Google access token");
    let request = HttpRequest {
        url: url.clone(),
        headers: vec![(
            "content-type".to_owned(),
            "application/x-www-form-urlencoded;charset=UTF-8".to_owned(),
        )],
        body: form.into_bytes().into(),
    };
    let failed = |reason: String, class: ErrorClass| VertexError::Token {
        url: url.clone(),
        reason,
        class,
    };
    let client = HttpClient::shared().map_err(|e| failed(e.to_string(), e.class()))?;
    let started = Instant::now();
    let response = client
        .post(
            &request,
            &RetryPolicy::NONE,
            DEFAULT_FIRST_BYTE_TIMEOUT,
            cancel,
        )
        .await
        .map_err(|error| match error {
            HttpError::Aborted => VertexError::Aborted,
            HttpError::Status {
                status, ref body, ..
            } => failed(endpoint_error(status, body), token_error_class(status)),
            error => failed(error.to_string(), error.class()),
        })?;
    let body = tokio::time::timeout(DEFAULT_FIRST_BYTE_TIMEOUT, response.bytes())
        .await
        .map_err(|_| {
            failed(
                "the answer did not arrive in time".into(),
                ErrorClass::Timeout,
            )
        })?
        .map_err(|e| failed(e.to_string(), ErrorClass::Connection))?;
    #[derive(Deserialize)]
    struct Answer {
        access_token: Option<String>,
        expires_in: Option<f64>,
    }
    let answer: Answer = serde_json::from_slice(&body).map_err(|e| {
        failed(
            format!("the answer is not JSON ({e})"),
            ErrorClass::InvalidResponse,
        )
    })?;
    let token = answer
        .access_token
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            failed(
                "the answer has no access_token".into(),
                ErrorClass::InvalidResponse,
            )
        })?;
    let lifetime = answer
        .expires_in
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map_or(
            Duration::from_secs(JWT_LIFETIME_SECS),
            Duration::from_secs_f64,
        );
    Ok(AccessToken {
        token,
        expires_at: started + lifetime,
    })
}

/// The signed JWT a service account exchanges, issued at `iat`.
pub fn sign_jwt(sa: &ServiceAccount, iat: u64, source: &str) -> Result<String, VertexError> {
    let key = EncodingKey::from_rsa_pem(sa.private_key.as_bytes()).map_err(|e| {
        VertexError::InvalidKey {
            path: source.to_owned(),
            reason: e.to_string(),
        }
    })?;
    let claims = JwtClaims {
        iss: sa.client_email.clone(),
        scope: CLOUD_PLATFORM_SCOPE.to_owned(),
        aud: GOOGLE_TOKEN_URL.to_owned(),
        exp: iat + JWT_LIFETIME_SECS,
        iat,
    };
    // pi's header is `{"alg":"RS256"}`: no `typ`, no `kid`.
    let mut header = Header::new(Algorithm::RS256);
    header.typ = None;
    jsonwebtoken::encode(&header, &claims, &key).map_err(|e| VertexError::InvalidKey {
        path: source.to_owned(),
        reason: e.to_string(),
    })
}

/// The refresh-token grant of an authorized user.
fn refresh_form(user: &AuthorizedUser) -> String {
    encode_form(&[
        ("refresh_token", &user.refresh_token),
        ("client_id", &user.client_id),
        ("client_secret", &user.client_secret),
        ("grant_type", "refresh_token"),
    ])
}

fn encode_form(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// The endpoint's `error: error_description` (google-auth-library's
/// wording), else the status and body.
fn endpoint_error(status: u16, body: &str) -> String {
    let json: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let field = |name: &str| {
        json.as_ref()
            .and_then(|j| j.get(name))
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    };
    match (field("error"), field("error_description")) {
        (Some(error), Some(description)) => format!("{error}: {description}"),
        (Some(error), None) => format!("{status} {error}"),
        _ => {
            let text: String = body.trim().chars().take(200).collect();
            format!("{status} {text}").trim_end().to_owned()
        }
    }
}

/// 400 (`invalid_grant`), 401 and 403 mean the credential is wrong.
fn token_error_class(status: u16) -> ErrorClass {
    match status {
        400 | 401 | 403 => ErrorClass::Auth,
        other => ErrorClass::of_status(other).unwrap_or(ErrorClass::Server),
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
#[path = "token_tests.rs"]
mod tests;
