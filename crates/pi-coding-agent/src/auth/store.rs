//! OAuth credentials in auth.json: saving a login, and refreshing an
//! expired access token under the auth.json lock so that of several tasks
//! or processes needing a refresh at once, one refreshes and the others
//! read its result (pi's `refreshOAuthTokenWithLock`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::auth::{AUTH_LOCK_FILE, open_lock_file, read_entries, write_entries};
use crate::config::{AuthStorage, ConfigError};

use super::OAuthError;
use super::credentials::{OAuthCredentials, now_ms};
use super::flow::{LoginCallbacks, OAuthEndpoints};
use super::providers::OAuthProvider;

/// How long a refresh waits for another process's refresh to finish.
const LOCK_WAIT: Duration = Duration::from_secs(60);
/// How often it looks.
const LOCK_POLL: Duration = Duration::from_millis(20);

/// The OAuth side of `<agent_dir>/auth.json`.
#[derive(Debug, Clone)]
pub struct OAuthStore {
    auth_path: PathBuf,
    endpoints: OAuthEndpoints,
}

impl OAuthStore {
    /// The store of `<agent_dir>/auth.json`, with pi's endpoints.
    pub fn new(agent_dir: &Path) -> Self {
        Self {
            auth_path: agent_dir.join("auth.json"),
            endpoints: OAuthEndpoints::default(),
        }
    }

    /// The same store talking to other endpoints (tests).
    pub fn with_endpoints(mut self, endpoints: OAuthEndpoints) -> Self {
        self.endpoints = endpoints;
        self
    }

    /// The auth.json path.
    pub fn auth_path(&self) -> &Path {
        &self.auth_path
    }

    /// Runs `provider`'s login and stores the credentials as
    /// `{"type": "oauth", ...}` (pi's `AuthStorage.login`).
    pub async fn login(
        &self,
        provider: OAuthProvider,
        callbacks: &dyn LoginCallbacks,
    ) -> Result<OAuthCredentials, OAuthError> {
        let credentials = provider.login(callbacks, &self.endpoints).await?;
        self.storage()?
            .set_entry(provider.id(), credentials.to_entry())?;
        Ok(credentials)
    }

    /// Removes the stored credentials of `provider_id` (pi's `/logout`);
    /// true when there were any.
    pub fn logout(&self, provider_id: &str) -> Result<bool, OAuthError> {
        Ok(self.storage()?.remove(provider_id)?)
    }

    /// The stored OAuth credentials of `provider_id`, if any.
    pub fn credentials(&self, provider_id: &str) -> Result<Option<OAuthCredentials>, OAuthError> {
        let entries = read_entries(&self.auth_path)?;
        Ok(entries
            .get(provider_id)
            .and_then(OAuthCredentials::from_entry))
    }

    /// The API key from `provider_id`'s OAuth login: the access token, after
    /// a locked refresh when it has expired. `None` without an OAuth login
    /// of a known provider.
    pub async fn api_key(&self, provider_id: &str) -> Result<Option<String>, OAuthError> {
        let Some(provider) = OAuthProvider::from_id(provider_id) else {
            return Ok(None);
        };
        let Some(credentials) = self.credentials(provider_id)? else {
            return Ok(None);
        };
        if !credentials.is_expired(now_ms()) {
            return Ok(Some(provider.api_key(&credentials)));
        }
        let refreshed = self.refresh_locked(provider).await?;
        Ok(refreshed.map(|c| provider.api_key(&c)))
    }

    /// Refreshes `provider`'s credentials holding the auth.json lock: under
    /// the lock the file is read again, and credentials another process has
    /// refreshed meanwhile are used as they are. A failed refresh leaves the
    /// stored credentials untouched.
    pub async fn refresh_locked(
        &self,
        provider: OAuthProvider,
    ) -> Result<Option<OAuthCredentials>, OAuthError> {
        let lock = self.lock().await?;
        // pi's own lock too: pi refreshing beside pi-rs waits for us.
        let pi_lock = super::pi_lock::take(&self.auth_path).await;
        let mut entries = read_entries(&self.auth_path)?;
        let Some(current) = entries
            .get(provider.id())
            .and_then(OAuthCredentials::from_entry)
        else {
            return Ok(None);
        };
        if !current.is_expired(now_ms()) {
            return Ok(Some(current));
        }
        tracing::debug!(provider = provider.id(), "refreshing the OAuth token");
        let refreshed = match provider.refresh(&current, &self.endpoints).await {
            Ok(refreshed) => refreshed,
            Err(error) => {
                // As pi: a process that does not take this lock (pi itself
                // locks differently) may have refreshed meanwhile — its
                // token, if fresh, is as good (and ours was then rotated).
                let again = read_entries(&self.auth_path)?;
                return match again
                    .get(provider.id())
                    .and_then(OAuthCredentials::from_entry)
                {
                    Some(theirs) if !theirs.is_expired(now_ms()) => Ok(Some(theirs)),
                    _ => Err(error),
                };
            }
        };
        entries.insert(provider.id().to_owned(), refreshed.to_entry());
        write_entries(&self.auth_path, &entries)?;
        drop(pi_lock);
        drop(lock);
        Ok(Some(refreshed))
    }

    fn storage(&self) -> Result<AuthStorage, ConfigError> {
        let dir = self.auth_path.parent().unwrap_or(Path::new("."));
        AuthStorage::load(dir)
    }

    /// Takes the exclusive lock, waiting (without blocking the runtime) for
    /// another holder up to a minute.
    async fn lock(&self) -> Result<std::fs::File, OAuthError> {
        let file = open_lock_file(&self.auth_path)?;
        let lock_path = || {
            self.auth_path
                .parent()
                .unwrap_or(Path::new("."))
                .join(AUTH_LOCK_FILE)
        };
        let started = tokio::time::Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(file),
                Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < LOCK_WAIT => {
                    tokio::time::sleep(LOCK_POLL).await;
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(OAuthError::Lock {
                        path: lock_path(),
                        source: std::io::Error::new(
                            std::io::ErrorKind::TimedOut,
                            "another process held it for a minute",
                        ),
                    });
                }
                Err(std::fs::TryLockError::Error(source)) => {
                    return Err(OAuthError::Lock {
                        path: lock_path(),
                        source,
                    });
                }
            }
        }
    }
}
