//! Application Default Credentials as google-auth-library finds them:
//! the file `GOOGLE_APPLICATION_CREDENTIALS` names, else gcloud's
//! `application_default_credentials.json` (in `CLOUDSDK_CONFIG`, else
//! `%APPDATA%\gcloud` on Windows, else `$HOME/.config/gcloud`). Two kinds
//! are understood: `service_account` (a private key that signs a JWT) and
//! `authorized_user` (gcloud's refresh token).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::env::VertexEnv;
use crate::error::VertexError;

/// Google's OAuth 2.0 token endpoint.
pub const GOOGLE_TOKEN_URL: &str = "https://oauth2.googleapis.com/token";

/// A usable credential.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Credentials {
    /// A service account key.
    ServiceAccount(ServiceAccount),
    /// A user's refresh token (`gcloud auth application-default login`).
    AuthorizedUser(AuthorizedUser),
}

/// The fields of a `service_account` file the token exchange uses.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize)]
pub struct ServiceAccount {
    /// The account (the JWT's `iss`).
    pub client_email: String,
    /// PEM PKCS#8 RSA private key.
    pub private_key: String,
    /// Key id (not sent: pi's JWT header is `{"alg":"RS256"}` only).
    #[serde(default)]
    pub private_key_id: Option<String>,
    /// Where the JWT is exchanged (Google's endpoint when absent).
    #[serde(default)]
    pub token_uri: Option<String>,
    /// Billing project for `x-goog-user-project`.
    #[serde(default)]
    pub quota_project_id: Option<String>,
}

/// The fields of an `authorized_user` file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Deserialize)]
pub struct AuthorizedUser {
    /// OAuth client id.
    pub client_id: String,
    /// OAuth client secret.
    pub client_secret: String,
    /// The refresh token.
    pub refresh_token: String,
    /// Where the refresh token is exchanged (Google's endpoint when absent).
    #[serde(default)]
    pub token_uri: Option<String>,
    /// Billing project for `x-goog-user-project`.
    #[serde(default)]
    pub quota_project_id: Option<String>,
}

impl Credentials {
    /// The token endpoint.
    pub fn token_url(&self) -> &str {
        let uri = match self {
            Self::ServiceAccount(sa) => sa.token_uri.as_deref(),
            Self::AuthorizedUser(user) => user.token_uri.as_deref(),
        };
        uri.filter(|u| !u.is_empty()).unwrap_or(GOOGLE_TOKEN_URL)
    }

    /// The quota project: `GOOGLE_CLOUD_QUOTA_PROJECT` wins over the file's.
    pub fn quota_project(&self, env: &VertexEnv) -> Option<String> {
        env.var("GOOGLE_CLOUD_QUOTA_PROJECT").or_else(|| {
            match self {
                Self::ServiceAccount(sa) => sa.quota_project_id.clone(),
                Self::AuthorizedUser(user) => user.quota_project_id.clone(),
            }
            .filter(|p| !p.is_empty())
        })
    }
}

/// Finds and reads the ADC file: its path and credentials.
pub async fn find_credentials(env: &VertexEnv) -> Result<(PathBuf, Credentials), VertexError> {
    let named = env
        .var("GOOGLE_APPLICATION_CREDENTIALS")
        .or_else(|| env.var("google_application_credentials"));
    if let Some(path) = named {
        let path = PathBuf::from(path);
        let text = read_file(&path)
            .await
            .map_err(|reason| VertexError::UnreadableEnvFile {
                path: path.display().to_string(),
                reason: reason.to_string(),
            })?;
        let credentials = parse_credentials(&path, &text)?;
        return Ok((path, credentials));
    }
    let well_known = well_known_file(env);
    if let Some(path) = &well_known
        && tokio::fs::metadata(path).await.is_ok()
    {
        let text = read_file(path)
            .await
            .map_err(|reason| VertexError::InvalidCredentials {
                path: path.display().to_string(),
                reason: reason.to_string(),
            })?;
        let credentials = parse_credentials(path, &text)?;
        return Ok((path.clone(), credentials));
    }
    Err(VertexError::NoCredentials {
        well_known: well_known.map_or_else(
            || "the gcloud configuration directory (HOME is not set)".to_owned(),
            |p| p.display().to_string(),
        ),
    })
}

/// gcloud's ADC file for this environment, when a directory is known.
pub fn well_known_file(env: &VertexEnv) -> Option<PathBuf> {
    let dir = match env.var("CLOUDSDK_CONFIG") {
        Some(dir) => PathBuf::from(dir),
        None if cfg!(windows) => PathBuf::from(env.var("APPDATA")?).join("gcloud"),
        None => PathBuf::from(env.var("HOME")?)
            .join(".config")
            .join("gcloud"),
    };
    Some(dir.join("application_default_credentials.json"))
}

/// Why a credentials file could not be read.
#[derive(Debug, thiserror::Error)]
enum ReadError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("It is not a regular file.")]
    NotAFile,
}

/// The whole file, when it is a readable regular file.
async fn read_file(path: &Path) -> Result<String, ReadError> {
    let meta = tokio::fs::metadata(path).await?;
    if !meta.is_file() {
        return Err(ReadError::NotAFile);
    }
    Ok(tokio::fs::read_to_string(path).await?)
}

/// The credentials in `text` (the contents of `path`).
pub fn parse_credentials(path: &Path, text: &str) -> Result<Credentials, VertexError> {
    let invalid = |reason: String| VertexError::InvalidCredentials {
        path: path.display().to_string(),
        reason,
    };
    let json: serde_json::Value =
        serde_json::from_str(text).map_err(|e| invalid(format!("not JSON ({e})")))?;
    let kind = json
        .get("type")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("service_account")
        .to_owned();
    let required: &[&str] = match kind.as_str() {
        "service_account" => &["client_email", "private_key"],
        "authorized_user" => &["client_id", "client_secret", "refresh_token"],
        _ => {
            return Err(VertexError::UnsupportedCredentials {
                path: path.display().to_string(),
                kind,
            });
        }
    };
    for field in required {
        let present = json
            .get(*field)
            .and_then(serde_json::Value::as_str)
            .is_some_and(|v| !v.is_empty());
        if !present {
            return Err(invalid(format!(
                "The incoming JSON object does not contain a {field} field"
            )));
        }
    }
    let credentials = if kind == "service_account" {
        serde_json::from_value(json).map(Credentials::ServiceAccount)
    } else {
        serde_json::from_value(json).map(Credentials::AuthorizedUser)
    };
    credentials.map_err(|e| invalid(e.to_string()))
}

#[cfg(test)]
#[path = "credentials_tests.rs"]
mod tests;
