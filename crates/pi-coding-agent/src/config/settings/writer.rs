//! Writing changed settings back to the global `settings.json` as pi does:
//! under the file's lock, the file is read again and only the changed keys
//! are replaced, so keys another process wrote in the meantime survive; the
//! result replaces the file atomically (temp file, fsync, rename) at its real
//! path.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};

use super::layers;
use super::lock::FileLock;
use crate::config::ConfigError;

/// Writes setting changes to one settings file, and remembers the
/// top-level values set during this run (pi's in-memory settings follow its
/// setters even when the file cannot be written).
#[derive(Debug, Clone, Default)]
pub struct SettingsWriter {
    path: Option<PathBuf>,
    changed: Arc<Mutex<Map<String, Value>>>,
}

impl SettingsWriter {
    /// A writer of `path`; `enabled` is false when the file could not be
    /// read at startup (pi then never overwrites it).
    pub fn new(path: PathBuf, enabled: bool) -> Self {
        Self {
            path: enabled.then_some(path),
            changed: Arc::default(),
        }
    }

    /// The value last set for top-level `key` in this run, if any.
    pub fn changed(&self, key: &str) -> Option<Value> {
        self.changed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
            .cloned()
    }

    /// The file written, when writing is enabled.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Sets top-level keys (`None` removes one), keeping every other key
    /// of the file as it is now. Does nothing when writing is disabled.
    pub fn set(&self, changes: &[(&str, Option<Value>)]) -> Result<(), ConfigError> {
        {
            let mut changed = self.changed.lock().unwrap_or_else(PoisonError::into_inner);
            for (key, value) in changes {
                changed.insert((*key).to_owned(), value.clone().unwrap_or(Value::Null));
            }
        }
        self.update(|current| {
            for (key, value) in changes {
                match value {
                    Some(value) => {
                        current.insert((*key).to_owned(), value.clone());
                    }
                    None => {
                        current.remove(*key);
                    }
                }
            }
        })
    }

    /// Sets `key.nested` (as pi's `compaction.enabled`), keeping the
    /// object's other members as the file has them now.
    pub fn set_nested(&self, key: &str, nested: &str, value: Value) -> Result<(), ConfigError> {
        self.update(|current| {
            let object = current
                .entry(key)
                .or_insert_with(|| Value::Object(Map::new()));
            if !object.is_object() {
                *object = Value::Object(Map::new());
            }
            if let Value::Object(object) = object {
                object.insert(nested.to_owned(), value);
            }
        })
    }

    /// Under the lock: reads the file again, applies `change`, writes it back.
    pub(crate) fn update(
        &self,
        change: impl FnOnce(&mut Map<String, Value>),
    ) -> Result<(), ConfigError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let io = |source| ConfigError::Io {
            path: path.clone(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let _lock = FileLock::acquire(path).map_err(io)?;
        let mut current = match crate::file_read::read_regular_to_string(
            path,
            crate::file_read::CONFIG_FILE_LIMIT,
        ) {
            Ok(text) if text.is_empty() => Map::new(),
            Ok(text) => match serde_json::from_str::<Value>(&text) {
                Ok(Value::Object(mut map)) => {
                    layers::migrate(&mut map);
                    map
                }
                Ok(_) => Map::new(),
                Err(source) => {
                    return Err(ConfigError::Json {
                        path: path.clone(),
                        source,
                    });
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Map::new(),
            Err(e) => return Err(io(e)),
        };
        change(&mut current);
        let text = serde_json::to_string_pretty(&Value::Object(current)).map_err(|source| {
            ConfigError::Json {
                path: path.clone(),
                source,
            }
        })?;
        write_atomically(path, text.as_bytes()).map_err(io)
    }
}

/// Replaces `path` with `bytes` at its real path (a symlinked settings file
/// keeps its symlink): a temp file beside it, synced, given the old file's
/// mode and owner, renamed over it ([`crate::file_replace`]).
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::file_replace::replace_file(path, crate::file_replace::ReplaceOptions::USER_FILE, bytes)?;
    Ok(())
}
