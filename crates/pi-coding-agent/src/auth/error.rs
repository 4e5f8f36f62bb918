//! The OAuth error type.

use std::path::PathBuf;

use crate::config::ConfigError;

/// What can go wrong in a login, a token refresh or their storage.
#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    /// No built-in OAuth provider has this id.
    #[error("Unknown OAuth provider: {0}")]
    UnknownProvider(String),
    /// The stored login can no longer be refreshed (the refresh token was
    /// revoked or expired): the user has to log in again.
    #[error(
        "Your {provider} login has expired or was revoked ({detail}). Log in again with /login or `pi login {provider}`."
    )]
    LoginExpired {
        /// The provider id.
        provider: String,
        /// The token endpoint's answer.
        detail: String,
    },
    /// A refresh failed for another reason (network, server error); the
    /// stored credentials are kept for the next attempt.
    #[error("Failed to refresh OAuth token for {provider}: {detail}")]
    RefreshFailed {
        /// The provider id.
        provider: String,
        /// What failed.
        detail: String,
    },
    /// A request to an OAuth endpoint failed or was refused.
    #[error("{what} failed. url={url}; {detail}")]
    Request {
        /// Which request (e.g. "Token exchange").
        what: &'static str,
        /// Its URL.
        url: String,
        /// Status and body, or the transport error.
        detail: String,
        /// The HTTP status, when there was an answer.
        status: Option<u16>,
    },
    /// An endpoint answered with something that is not what pi expects.
    #[error("{0}")]
    InvalidResponse(String),
    /// The pasted redirect URL or the callback carried another state.
    #[error("OAuth state mismatch")]
    StateMismatch,
    /// No authorization code was received or pasted.
    #[error("Missing authorization code")]
    MissingCode,
    /// The user cancelled the login.
    #[error("Login cancelled")]
    Cancelled,
    /// The GitHub Enterprise domain could not be parsed.
    #[error("Invalid GitHub Enterprise URL/domain")]
    InvalidEnterpriseDomain,
    /// GitHub's device flow ended with an error.
    #[error("Device flow failed: {error}{}", description.as_deref().map(|d| format!(": {d}")).unwrap_or_default())]
    DeviceFlow {
        /// The `error` code.
        error: String,
        /// Its `error_description`.
        description: Option<String>,
    },
    /// GitHub's device code expired before the user authorized it.
    #[error("{}", if *slow_down {
        "Device flow timed out after one or more slow_down responses. This is often caused by clock drift in WSL or VM environments. Please sync or restart the VM clock and try again."
    } else {
        "Device flow timed out"
    })]
    DeviceFlowTimedOut {
        /// Whether GitHub asked to slow down on the way.
        slow_down: bool,
    },
    /// The ChatGPT access token carries no account id.
    #[error("Failed to extract accountId from token")]
    MissingAccountId,
    /// The loopback callback server could not listen.
    #[error("cannot listen for the OAuth callback on {addr}: {source}")]
    CallbackServer {
        /// host:port.
        addr: String,
        /// The bind error.
        source: std::io::Error,
    },
    /// The auth.json lock could not be taken.
    #[error("cannot lock {}: {source}", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Reading or writing auth.json failed.
    #[error(transparent)]
    Storage(#[from] ConfigError),
    /// The system's random source failed (no PKCE verifier or state).
    #[error("the system random number generator failed")]
    Random,
    /// Reading the user's input failed.
    #[error("cannot read input: {0}")]
    Input(std::io::Error),
}
