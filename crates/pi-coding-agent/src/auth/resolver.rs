//! The agent's `get_api_key` hook: resolves a provider's key before every
//! model call as pi's `AuthStorage.getApiKey` does — `--api-key`, then
//! auth.json (an API key, or an OAuth access token refreshed under the lock
//! when it has expired), then the environment, then models.json.

use std::path::Path;

use async_trait::async_trait;
use pi_agent_core::GetApiKey;
use pi_ai::Provider;

use crate::config::{AuthStorage, ModelRegistry};

use super::credentials::{OAuthCredentials, now_ms};
use super::flow::OAuthEndpoints;
use super::providers::OAuthProvider;
use super::store::OAuthStore;

/// Resolves API keys, refreshing OAuth logins when they expire.
#[derive(Debug)]
pub struct OAuthKeyResolver {
    registry: ModelRegistry,
    /// Shared with the app: `/login` changes are seen, refreshes are shown.
    auth: AuthStorage,
    cli_key: Option<String>,
    store: OAuthStore,
}

impl OAuthKeyResolver {
    /// A resolver over the loaded registry and auth.json; `cli_key` is `--api-key`.
    pub fn new(registry: ModelRegistry, auth: AuthStorage, cli_key: Option<String>) -> Self {
        let dir = auth.path().parent().unwrap_or(Path::new(".")).to_path_buf();
        Self {
            registry,
            auth,
            cli_key,
            store: OAuthStore::new(&dir),
        }
    }

    /// The same resolver refreshing against other endpoints (tests).
    pub fn with_endpoints(mut self, endpoints: OAuthEndpoints) -> Self {
        self.store = self.store.with_endpoints(endpoints);
        self
    }

    /// The key for `provider_id`, if any. A refresh that fails is logged
    /// (a revoked login says to log in again) and gives no key, as in pi.
    pub async fn resolve(&self, provider_id: &str) -> Option<String> {
        if let Some(key) = &self.cli_key {
            return Some(key.clone());
        }
        let stored = self
            .auth
            .entry(provider_id)
            .and_then(|entry| OAuthCredentials::from_entry(&entry));
        if let (Some(provider), Some(credentials)) = (OAuthProvider::from_id(provider_id), stored) {
            if !credentials.is_expired(now_ms()) {
                return Some(provider.api_key(&credentials));
            }
            let refreshed = self.store.refresh_locked(provider).await;
            self.reload();
            match refreshed {
                Ok(Some(credentials)) => return Some(provider.api_key(&credentials)),
                // Logged out meanwhile: other sources may still have a key.
                Ok(None) => {}
                Err(error) => {
                    tracing::error!("{error}");
                    return None;
                }
            }
        }
        self.registry
            .api_key(provider_id, None, &self.auth)
            .ok()
            .flatten()
    }

    fn reload(&self) {
        if let Err(error) = self.auth.reload() {
            tracing::warn!("cannot reload auth.json: {error}");
        }
    }
}

#[async_trait]
impl GetApiKey for OAuthKeyResolver {
    async fn api_key(&self, provider: &Provider) -> Option<String> {
        self.resolve(provider.as_str()).await
    }
}
