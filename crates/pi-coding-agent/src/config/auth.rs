//! `auth.json` in the agent dir: stored API keys per provider
//! (`{"anthropic": {"type": "api_key", "key": "sk-..."}}`), written with
//! mode 0600 and replaced atomically. The storage is shared: clones see the
//! same credentials, and `/login` / `/logout` change them while the app runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ConfigError;

/// One stored credential.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Credential {
    /// A plain API key.
    ApiKey {
        /// The key.
        key: String,
    },
    /// An OAuth credential written by pi's login flow, kept verbatim.
    Oauth {
        /// Every field of the credential.
        #[serde(flatten)]
        fields: Map<String, Value>,
    },
}

/// The credentials file.
#[derive(Debug, Clone, Default)]
pub struct AuthStorage {
    path: PathBuf,
    credentials: Arc<RwLock<BTreeMap<String, Credential>>>,
}

impl AuthStorage {
    /// Loads `<agent_dir>/auth.json`; a missing file is empty.
    pub fn load(agent_dir: &Path) -> Result<Self, ConfigError> {
        let path = agent_dir.join("auth.json");
        let credentials = match std::fs::read_to_string(&path) {
            Ok(text) if text.trim().is_empty() => BTreeMap::new(),
            Ok(text) => serde_json::from_str(&text).map_err(|source| ConfigError::Json {
                path: path.clone(),
                source,
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(source) => return Err(ConfigError::Io { path, source }),
        };
        Ok(Self {
            path,
            credentials: Arc::new(RwLock::new(credentials)),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The stored API key of `provider`.
    pub fn api_key(&self, provider: &str) -> Option<String> {
        let credentials = self
            .credentials
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        match credentials.get(provider)? {
            Credential::ApiKey { key } => Some(key.clone()),
            Credential::Oauth { fields } => fields
                .get("access")
                .and_then(Value::as_str)
                .map(str::to_owned),
        }
    }

    /// The stored credential of `provider`.
    pub fn get(&self, provider: &str) -> Option<Credential> {
        let credentials = self
            .credentials
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        credentials.get(provider).cloned()
    }

    /// The providers with a stored credential, sorted.
    pub fn providers(&self) -> Vec<String> {
        let credentials = self
            .credentials
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        credentials.keys().cloned().collect()
    }

    /// Stores an API key and rewrites the file (mode 0600).
    pub fn set_api_key(&self, provider: &str, key: &str) -> Result<(), ConfigError> {
        self.set(
            provider,
            Credential::ApiKey {
                key: key.to_owned(),
            },
        )
    }

    /// Stores a credential and rewrites the file (mode 0600).
    pub fn set(&self, provider: &str, credential: Credential) -> Result<(), ConfigError> {
        let mut credentials = self
            .credentials
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        credentials.insert(provider.to_owned(), credential);
        self.save(&credentials)
    }

    /// Removes `provider`'s credential (`/logout`); false when there was none.
    pub fn remove(&self, provider: &str) -> Result<bool, ConfigError> {
        let mut credentials = self
            .credentials
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if credentials.remove(provider).is_none() {
            return Ok(false);
        }
        self.save(&credentials).map(|()| true)
    }

    fn save(&self, credentials: &BTreeMap<String, Credential>) -> Result<(), ConfigError> {
        let io = |source| ConfigError::Io {
            path: self.path.clone(),
            source,
        };
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let text =
            serde_json::to_string_pretty(credentials).map_err(|source| ConfigError::Json {
                path: self.path.clone(),
                source,
            })?;
        // The temporary file is created 0600 and renamed over the old one.
        crate::session::replace_file(&self.path, text.as_bytes()).map_err(io)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&self.path, std::fs::Permissions::from_mode(0o600))
                .map_err(io)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_stored_with_mode_0600_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let auth = AuthStorage::load(dir.path()).unwrap();
        assert_eq!(auth.api_key("anthropic"), None);
        auth.set_api_key("anthropic", "sk-ant-1").unwrap();
        let again = AuthStorage::load(dir.path()).unwrap();
        assert_eq!(again.api_key("anthropic").as_deref(), Some("sk-ant-1"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join("auth.json"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let text = std::fs::read_to_string(dir.path().join("auth.json")).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            serde_json::json!({"anthropic": {"type": "api_key", "key": "sk-ant-1"}})
        );
    }

    #[test]
    fn oauth_entries_survive_a_rewrite() {
        let dir = tempfile::tempdir().unwrap();
        let oauth = r#"{"anthropic":{"type":"oauth","refresh":"r","access":"a","expires":1}}"#;
        std::fs::write(dir.path().join("auth.json"), oauth).unwrap();
        let auth = AuthStorage::load(dir.path()).unwrap();
        assert_eq!(auth.api_key("anthropic").as_deref(), Some("a"));
        auth.set_api_key("openai", "sk-1").unwrap();
        let text = std::fs::read_to_string(dir.path().join("auth.json")).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["anthropic"],
            serde_json::json!({"type": "oauth", "refresh": "r", "access": "a", "expires": 1})
        );
    }

    #[test]
    fn logout_removes_only_that_provider() {
        let dir = tempfile::tempdir().unwrap();
        let auth = AuthStorage::load(dir.path()).unwrap();
        auth.set_api_key("openai", "sk-1").unwrap();
        auth.set_api_key("groq", "gsk").unwrap();
        let shared = auth.clone();
        assert!(shared.remove("openai").unwrap());
        assert!(!auth.remove("openai").unwrap());
        assert_eq!(auth.api_key("openai"), None);
        assert_eq!(auth.providers(), vec!["groq"]);
        let again = AuthStorage::load(dir.path()).unwrap();
        assert_eq!(again.api_key("groq").as_deref(), Some("gsk"));
        assert_eq!(again.api_key("openai"), None);
    }
}
