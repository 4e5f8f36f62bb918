//! The built-in OAuth providers, as pi registers them: their ids, display
//! names, login flows, refreshes and how credentials become an API key.

use super::credentials::OAuthCredentials;
use super::flow::{LoginCallbacks, OAuthEndpoints};
use super::{OAuthError, anthropic, github_copilot, openai_codex};

/// A subscription login pi knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OAuthProvider {
    /// Claude Pro/Max.
    Anthropic,
    /// GitHub Copilot.
    GithubCopilot,
    /// ChatGPT Plus/Pro (Codex).
    OpenaiCodex,
}

impl OAuthProvider {
    /// Every provider, in pi's registry order.
    pub const ALL: [Self; 3] = [Self::Anthropic, Self::GithubCopilot, Self::OpenaiCodex];

    /// The provider for an id (`anthropic`, `github-copilot`, `openai-codex`).
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.id() == id)
    }

    /// The provider id, also its auth.json key and model provider.
    pub fn id(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::GithubCopilot => "github-copilot",
            Self::OpenaiCodex => "openai-codex",
        }
    }

    /// The name pi shows.
    pub fn name(self) -> &'static str {
        match self {
            Self::Anthropic => "Anthropic (Claude Pro/Max)",
            Self::GithubCopilot => "GitHub Copilot",
            Self::OpenaiCodex => "ChatGPT Plus/Pro (Codex Subscription)",
        }
    }

    /// Whether the login listens for a browser redirect (and so takes a
    /// pasted redirect URL as well).
    pub fn uses_callback_server(self) -> bool {
        !matches!(self, Self::GithubCopilot)
    }

    /// Runs the login flow and returns the credentials to store.
    pub async fn login(
        self,
        callbacks: &dyn LoginCallbacks,
        endpoints: &OAuthEndpoints,
    ) -> Result<OAuthCredentials, OAuthError> {
        match self {
            Self::Anthropic => anthropic::login(callbacks, endpoints).await,
            Self::GithubCopilot => github_copilot::login(callbacks, endpoints).await,
            Self::OpenaiCodex => openai_codex::login(callbacks, endpoints).await,
        }
    }

    /// Refreshes expired credentials.
    pub async fn refresh(
        self,
        credentials: &OAuthCredentials,
        endpoints: &OAuthEndpoints,
    ) -> Result<OAuthCredentials, OAuthError> {
        match self {
            Self::Anthropic => anthropic::refresh(endpoints, credentials.refresh()).await,
            Self::GithubCopilot => github_copilot::refresh(endpoints, credentials).await,
            Self::OpenaiCodex => openai_codex::refresh(endpoints, credentials.refresh()).await,
        }
    }

    /// The API key the provider's wire uses: the access token for all three
    /// (an Anthropic `sk-ant-oat…` token makes the anthropic wire send
    /// Claude Code's headers and system prompt prefix).
    pub fn api_key(self, credentials: &OAuthCredentials) -> String {
        credentials.access().to_owned()
    }
}
