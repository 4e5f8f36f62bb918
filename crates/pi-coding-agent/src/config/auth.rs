//! `auth.json` in the agent dir: stored API keys per provider
//! (`{"anthropic": {"type": "api_key", "key": "sk-..."}}`), written with
//! mode 0600.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

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
    credentials: BTreeMap<String, Credential>,
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
        Ok(Self { path, credentials })
    }

    /// The stored API key of `provider`.
    pub fn api_key(&self, provider: &str) -> Option<&str> {
        match self.credentials.get(provider)? {
            Credential::ApiKey { key } => Some(key.as_str()),
            Credential::Oauth { fields } => fields.get("access").and_then(Value::as_str),
        }
    }

    /// Stores an API key and rewrites the file (mode 0600).
    pub fn set_api_key(&mut self, provider: &str, key: &str) -> Result<(), ConfigError> {
        self.credentials.insert(
            provider.to_owned(),
            Credential::ApiKey {
                key: key.to_owned(),
            },
        );
        self.save()
    }

    fn save(&self) -> Result<(), ConfigError> {
        let io = |source| ConfigError::Io {
            path: self.path.clone(),
            source,
        };
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let text = serde_json::to_string_pretty(&self.credentials).map_err(|source| {
            ConfigError::Json {
                path: self.path.clone(),
                source,
            }
        })?;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&self.path).map_err(io)?;
        file.write_all(text.as_bytes()).map_err(io)?;
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
        let mut auth = AuthStorage::load(dir.path()).unwrap();
        assert_eq!(auth.api_key("anthropic"), None);
        auth.set_api_key("anthropic", "sk-ant-1").unwrap();
        let again = AuthStorage::load(dir.path()).unwrap();
        assert_eq!(again.api_key("anthropic"), Some("sk-ant-1"));
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
        let mut auth = AuthStorage::load(dir.path()).unwrap();
        assert_eq!(auth.api_key("anthropic"), Some("a"));
        auth.set_api_key("openai", "sk-1").unwrap();
        let text = std::fs::read_to_string(dir.path().join("auth.json")).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["anthropic"],
            serde_json::json!({"type": "oauth", "refresh": "r", "access": "a", "expires": 1})
        );
    }
}
