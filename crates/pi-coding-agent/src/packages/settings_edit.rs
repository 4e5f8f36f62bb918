//! The `packages` lists of the two settings files: read, and changed the
//! way pi changes them (an entry added at the end, entries of the same
//! identity removed; the file re-read under its lock and only `packages`
//! replaced, atomically).

use std::path::Path;

use serde_json::Value;

use super::{PackageError, PackageManager, Scope, Source};
use crate::config::SettingsWriter;

/// One entry of a `packages` list: a source string, or the object form
/// with filters.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageEntry {
    /// The source.
    pub source: String,
    /// The object form (`None`: a plain string).
    pub filter: Option<serde_json::Map<String, Value>>,
}

impl PackageEntry {
    /// Reads one list item (`None`: neither a string nor an object with a
    /// string `source`).
    pub fn from_value(value: &Value) -> Option<Self> {
        match value {
            Value::String(source) => Some(Self {
                source: source.clone(),
                filter: None,
            }),
            Value::Object(map) => Some(Self {
                source: map.get("source")?.as_str()?.to_owned(),
                filter: Some(map.clone()),
            }),
            _ => None,
        }
    }

    /// The filter patterns of one resource kind: `None` when the key is
    /// absent (everything of that kind loads).
    pub fn patterns(&self, kind: &str) -> Option<Vec<String>> {
        let list = self.filter.as_ref()?.get(kind)?.as_array()?;
        Some(
            list.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
        )
    }
}

/// The raw `packages` array of a settings file (missing or unreadable:
/// empty).
fn read_list(path: &Path) -> Vec<Value> {
    let Ok(text) =
        crate::file_read::read_regular_to_string(path, crate::file_read::CONFIG_FILE_LIMIT)
    else {
        return Vec::new();
    };
    serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v.get("packages").and_then(Value::as_array).cloned())
        .unwrap_or_default()
}

impl PackageManager {
    /// The entries of `scope`'s `packages` setting, in order.
    pub fn packages(&self, scope: Scope) -> Vec<PackageEntry> {
        read_list(&self.settings_path(scope))
            .iter()
            .filter_map(PackageEntry::from_value)
            .collect()
    }

    /// How a typed source is written to `scope`'s settings: local paths
    /// relative to the settings file's folder (`.` for the folder itself).
    pub fn settings_form(&self, source: &str, scope: Scope) -> String {
        let Source::Local(path) = Source::parse(source) else {
            return source.to_owned();
        };
        let resolved = super::source::resolve_local(&path, &self.cwd, &self.home);
        let relative = relative(&resolved, &self.base_dir(scope));
        if relative.is_empty() {
            ".".to_owned()
        } else {
            relative
        }
    }

    /// Adds `source` to `scope`'s list unless an entry of its identity is
    /// there; true when the file changed.
    pub fn add_to_settings(&self, source: &str, scope: Scope) -> Result<bool, PackageError> {
        let path = self.settings_path(scope);
        let mut list = read_list(&path);
        let wanted = self.input_identity(source);
        let exists = list
            .iter()
            .filter_map(PackageEntry::from_value)
            .any(|e| self.identity(&e.source, scope) == wanted);
        if exists {
            return Ok(false);
        }
        list.push(Value::String(self.settings_form(source, scope)));
        SettingsWriter::new(path, true).set(&[("packages", Some(Value::Array(list)))])?;
        Ok(true)
    }

    /// Removes every entry of `source`'s identity from `scope`'s list;
    /// true when one was there.
    pub fn remove_from_settings(&self, source: &str, scope: Scope) -> Result<bool, PackageError> {
        let path = self.settings_path(scope);
        let list = read_list(&path);
        let wanted = self.input_identity(source);
        let before = list.len();
        let kept: Vec<Value> = list
            .into_iter()
            .filter(|v| {
                PackageEntry::from_value(v)
                    .is_none_or(|e| self.identity(&e.source, scope) != wanted)
            })
            .collect();
        if kept.len() == before {
            return Ok(false);
        }
        SettingsWriter::new(path, true).set(&[("packages", Some(Value::Array(kept)))])?;
        Ok(true)
    }
}

/// `path` relative to `base`, with `..` steps (Node's `path.relative`).
pub(crate) use crate::resources::patterns::relative;

#[cfg(test)]
mod tests {
    use super::*;

    fn manager(root: &Path) -> PackageManager {
        let mut m = PackageManager::new(&root.join("project"), &root.join("agent"));
        m.home = root.join("home");
        m
    }

    #[test]
    fn local_paths_are_written_relative_to_their_settings_file() {
        let dir = tempfile::tempdir().unwrap();
        let m = manager(dir.path());
        assert_eq!(m.settings_form("./kit", Scope::Project), "../kit");
        assert_eq!(m.settings_form("./kit", Scope::User), "../project/kit");
        assert_eq!(m.settings_form(".pi", Scope::Project), ".");
        assert_eq!(m.settings_form("npm:x@1", Scope::User), "npm:x@1");
    }

    #[test]
    fn add_once_per_identity_and_remove_every_match() {
        let dir = tempfile::tempdir().unwrap();
        let m = manager(dir.path());
        let file = m.settings_path(Scope::User);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(
            &file,
            "{\"theme\": \"dark\", \"packages\": [{\"source\": \"npm:a\", \"skills\": []}]}",
        )
        .unwrap();
        assert!(!m.add_to_settings("npm:a@2", Scope::User).unwrap());
        assert!(
            m.add_to_settings("git:github.com/u/r@v1", Scope::User)
                .unwrap()
        );
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "{\n  \"theme\": \"dark\",\n  \"packages\": [\n    {\n      \"source\": \"npm:a\",\n      \"skills\": []\n    },\n    \"git:github.com/u/r@v1\"\n  ]\n}"
        );
        assert!(
            m.remove_from_settings("https://github.com/u/r", Scope::User)
                .unwrap()
        );
        assert!(m.remove_from_settings("npm:a", Scope::User).unwrap());
        assert!(!m.remove_from_settings("npm:a", Scope::User).unwrap());
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "{\n  \"theme\": \"dark\",\n  \"packages\": []\n}"
        );
    }

    #[test]
    fn an_unreadable_settings_file_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let m = manager(dir.path());
        let file = m.settings_path(Scope::User);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "{not json").unwrap();
        assert!(m.add_to_settings("npm:a", Scope::User).is_err());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "{not json");
    }
}
