//! `auth.json` in the agent dir: stored credentials per provider, in pi's
//! format — `{"anthropic": {"type": "api_key", "key": "sk-..."}}` for API
//! keys and `{"type": "oauth", "refresh": …, "access": …, "expires": …}`
//! (plus provider fields such as `accountId`) for subscription logins.
//!
//! Loading is lossless (entries are kept as JSON, in file order, whatever
//! their type). Every change is a read-modify-write of the current file
//! under an exclusive advisory lock on `auth.json.flock` beside it, written
//! atomically (temporary file, fsync, rename) with mode 0600, so changes
//! made by other processes meanwhile are kept. The storage is shared: clones
//! see the same credentials, and `/login` / `/logout` change them while the
//! app runs.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ConfigError;

/// The lock file beside `auth.json` that serializes its rewrites (and OAuth
/// token refreshes) between processes.
pub const AUTH_LOCK_FILE: &str = "auth.json.flock";

/// One stored credential.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Credential {
    /// A plain API key.
    ApiKey {
        /// The key.
        key: String,
    },
    /// An OAuth credential written by a login flow, kept verbatim.
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
    entries: Arc<RwLock<Map<String, Value>>>,
}

impl AuthStorage {
    /// Loads `<agent_dir>/auth.json`; a missing file is empty.
    pub fn load(agent_dir: &Path) -> Result<Self, ConfigError> {
        let path = agent_dir.join("auth.json");
        let entries = read_entries(&path)?;
        Ok(Self {
            path,
            entries: Arc::new(RwLock::new(entries)),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the file again (another process or an OAuth refresh may have
    /// changed it); every clone sees the new entries.
    pub fn reload(&self) -> Result<(), ConfigError> {
        let entries = read_entries(&self.path)?;
        *self.write() = entries;
        Ok(())
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Map<String, Value>> {
        self.entries.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Map<String, Value>> {
        self.entries.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// The stored API key of `provider`: an API key entry's key, or an OAuth
    /// entry's access token (whether or not it has expired; see
    /// [`crate::auth::OAuthKeyResolver`] for refreshing).
    pub fn api_key(&self, provider: &str) -> Option<String> {
        let entries = self.read();
        let entry = entries.get(provider)?;
        let key = match entry.get("type")?.as_str()? {
            "api_key" => entry.get("key")?.as_str(),
            "oauth" => entry.get("access")?.as_str(),
            _ => None,
        };
        key.map(str::to_owned)
    }

    /// The raw stored entry of `provider`.
    pub fn entry(&self, provider: &str) -> Option<Value> {
        self.read().get(provider).cloned()
    }

    /// The stored credential of `provider`, when it is of a known type.
    pub fn get(&self, provider: &str) -> Option<Credential> {
        serde_json::from_value(self.read().get(provider)?.clone()).ok()
    }

    /// The providers with a stored credential, in file order.
    pub fn providers(&self) -> Vec<String> {
        self.read().keys().cloned().collect()
    }

    /// Stores an API key and rewrites the file (mode 0600).
    pub fn set_api_key(&self, provider: &str, key: &str) -> Result<(), ConfigError> {
        self.set_entry(provider, serde_json::json!({"type": "api_key", "key": key}))
    }

    /// Stores a credential and rewrites the file (mode 0600).
    pub fn set(&self, provider: &str, credential: Credential) -> Result<(), ConfigError> {
        let entry = serde_json::to_value(credential).map_err(|source| ConfigError::Json {
            path: self.path.clone(),
            source,
        })?;
        self.set_entry(provider, entry)
    }

    /// Stores `entry` (an `api_key` or `oauth` object) for `provider`,
    /// merged into the current file under its lock.
    pub fn set_entry(&self, provider: &str, entry: Value) -> Result<(), ConfigError> {
        let provider = provider.to_owned();
        let entries = update_locked(&self.path, |entries| {
            entries.insert(provider, entry);
        })?;
        *self.write() = entries;
        Ok(())
    }

    /// Removes the credential of `provider` (`/logout`); false when there
    /// was none.
    pub fn remove(&self, provider: &str) -> Result<bool, ConfigError> {
        let mut removed = false;
        let entries = update_locked(&self.path, |entries| {
            removed = entries.shift_remove(provider).is_some();
        })?;
        *self.write() = entries;
        Ok(removed)
    }
}

/// Reads the entries of `path`; a missing or blank file is empty.
pub(crate) fn read_entries(path: &Path) -> Result<Map<String, Value>, ConfigError> {
    match crate::file_read::read_regular_to_string(path, crate::file_read::CONFIG_FILE_LIMIT) {
        Ok(text) if text.trim().is_empty() => Ok(Map::new()),
        Ok(text) => serde_json::from_str(&text).map_err(|source| ConfigError::Json {
            path: path.to_path_buf(),
            source,
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Map::new()),
        Err(source) => Err(ConfigError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Opens (creating it and its directory, mode 0700 like pi's) the lock file
/// beside `auth_path`.
pub(crate) fn open_lock_file(auth_path: &Path) -> Result<File, ConfigError> {
    let dir = parent_dir(auth_path);
    let io = |source| ConfigError::Io {
        path: dir.join(AUTH_LOCK_FILE),
        source,
    };
    create_private_dir(dir).map_err(io)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(dir.join(AUTH_LOCK_FILE)).map_err(io)
}

/// Runs `change` on the current entries of `path` while holding the file's
/// exclusive lock, writes the result and returns it.
fn update_locked(
    path: &Path,
    change: impl FnOnce(&mut Map<String, Value>),
) -> Result<Map<String, Value>, ConfigError> {
    let lock = open_lock_file(path)?;
    lock.lock().map_err(|source| ConfigError::Io {
        path: parent_dir(path).join(AUTH_LOCK_FILE),
        source,
    })?;
    // pi's own lock too, so that pi running beside pi-rs does not race.
    let pi_lock = crate::auth::pi_lock::take_blocking(path);
    let mut entries = read_entries(path)?;
    change(&mut entries);
    write_entries(path, &entries)?;
    drop(pi_lock);
    drop(lock);
    Ok(entries)
}

/// Writes `entries` to `path` as pi does (two-space indented JSON), atomically
/// and with mode 0600. The caller holds the lock.
pub(crate) fn write_entries(path: &Path, entries: &Map<String, Value>) -> Result<(), ConfigError> {
    let text = serde_json::to_string_pretty(entries).map_err(|source| ConfigError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    replace_private_file(path, text.as_bytes()).map_err(|source| ConfigError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Replaces `path` by `content` at its real path (a symlinked `auth.json`
/// keeps its symlink; [`crate::file_replace`]), mode 0600.
fn replace_private_file(path: &Path, content: &[u8]) -> std::io::Result<()> {
    create_private_dir(parent_dir(path))?;
    let replaced = crate::file_replace::replace_file(
        path,
        crate::file_replace::ReplaceOptions::PRIVATE_FILE,
        content,
    )?;
    // Secrets stay private even where the old file was not.
    #[cfg(unix)]
    if replaced.strategy != crate::file_replace::Strategy::Special {
        use std::os::unix::fs::PermissionsExt;
        replaced
            .file
            .set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(())
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
    fn a_rewrite_keeps_what_another_process_wrote_and_unknown_entries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("auth.json");
        std::fs::write(
            &path,
            r#"{"z":{"type":"future","x":[1]},"a":{"type":"api_key","key":"k"}}"#,
        )
        .unwrap();
        let auth = AuthStorage::load(dir.path()).unwrap();
        // Another process adds a key after this one loaded the file.
        std::fs::write(
            &path,
            r#"{"z":{"type":"future","x":[1]},"a":{"type":"api_key","key":"k"},"b":{"type":"api_key","key":"kb"}}"#,
        )
        .unwrap();
        auth.set_api_key("c", "kc").unwrap();
        let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["z", "a", "b", "c"], "file order kept, nothing lost");
        assert_eq!(value["z"], serde_json::json!({"type": "future", "x": [1]}));
        assert!(auth.remove("a").unwrap());
        assert!(!auth.remove("a").unwrap());
        assert_eq!(auth.api_key("b").as_deref(), Some("kb"));
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".pi-tmp-"))
            .collect();
        assert!(names.is_empty(), "no temporary file left: {names:?}");
    }

    #[test]
    fn a_symlinked_auth_file_keeps_its_symlink_and_stays_private() {
        let dir = tempfile::tempdir().unwrap();
        let dotfiles = dir.path().join("dotfiles");
        std::fs::create_dir(&dotfiles).unwrap();
        std::fs::write(dotfiles.join("auth.json"), "{}").unwrap();
        std::os::unix::fs::symlink(dotfiles.join("auth.json"), dir.path().join("auth.json"))
            .unwrap();
        let auth = AuthStorage::load(dir.path()).unwrap();
        auth.set_api_key("openai", "sk-1").unwrap();
        let link = std::fs::symlink_metadata(dir.path().join("auth.json")).unwrap();
        assert!(link.file_type().is_symlink());
        let real = std::fs::read_to_string(dotfiles.join("auth.json")).unwrap();
        assert!(real.contains("sk-1"), "{real}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dotfiles.join("auth.json"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
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
