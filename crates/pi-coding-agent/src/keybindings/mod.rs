//! `keybindings.json` in the agent dir: pi's flat `{"action id": "key" | ["key", ...]}`
//! object. An entry replaces that action's default keys; legacy ids (`submit`,
//! `expandTools`, ...) are renamed to pi's namespaced ids. Problems (unreadable file,
//! bad values, unknown keys, keys claimed twice) become warnings, never errors.

mod defs;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use pi_tui::keybindings::{Keybindings, TUI_BINDINGS};
use serde_json::Value;

pub use defs::{APP_BINDINGS, LEGACY_IDS};

/// The file name in the agent dir.
pub const FILE_NAME: &str = "keybindings.json";

/// The effective bindings and what was wrong with the file.
#[derive(Debug, Clone)]
pub struct LoadedKeybindings {
    /// Every action's keys.
    pub bindings: Arc<Keybindings>,
    /// Problems to show the user.
    pub warnings: Vec<String>,
}

/// The default bindings of every editor and app action.
pub fn defaults() -> Keybindings {
    build(&BTreeMap::new())
}

/// The bindings with `user` entries (already migrated) replacing defaults.
pub fn build(user: &BTreeMap<String, Vec<String>>) -> Keybindings {
    let definitions = TUI_BINDINGS.iter().chain(APP_BINDINGS).copied().collect();
    Keybindings::new(definitions, user)
}

/// The new id of a legacy one.
fn migrate_id(id: &str) -> &str {
    LEGACY_IDS
        .iter()
        .find(|(old, _)| *old == id)
        .map_or(id, |(_, new)| new)
}

/// The user entries of a parsed file, legacy ids renamed (a legacy entry whose new id is
/// also present is dropped, as pi does), with warnings for values that are not keys.
pub fn user_entries(json: &Value) -> (BTreeMap<String, Vec<String>>, Vec<String>) {
    let mut entries = BTreeMap::new();
    let mut warnings = Vec::new();
    let Some(object) = json.as_object() else {
        warnings.push(format!(
            "{FILE_NAME} is not a JSON object; using default keys"
        ));
        return (entries, warnings);
    };
    for (key, value) in object {
        let id = migrate_id(key);
        if id != key && object.contains_key(id) {
            continue;
        }
        let keys = match value {
            Value::String(s) => Some(vec![s.clone()]),
            Value::Array(items) => items
                .iter()
                .map(|i| i.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>(),
            _ => None,
        };
        match keys {
            Some(keys) => {
                entries.insert(id.to_owned(), keys);
            }
            None => warnings.push(format!(
                "{FILE_NAME}: \"{key}\" must be a key or a list of keys; ignored"
            )),
        }
    }
    (entries, warnings)
}

/// Loads `<agent_dir>/keybindings.json` (a missing file means the defaults).
pub fn load(agent_dir: &Path) -> LoadedKeybindings {
    let path = agent_dir.join(FILE_NAME);
    let (user, mut warnings) = match crate::file_read::read_regular_to_string(
        &path,
        crate::file_read::CONFIG_FILE_LIMIT,
    ) {
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(json) => user_entries(&json),
            Err(e) => (
                BTreeMap::new(),
                vec![format!(
                    "Cannot parse {}: {e}; using default keys",
                    path.display()
                )],
            ),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (BTreeMap::new(), Vec::new()),
        Err(e) => (
            BTreeMap::new(),
            vec![format!("Cannot read {}: {e}", path.display())],
        ),
    };
    let bindings = build(&user);
    for (id, key) in bindings.invalid_keys() {
        warnings.push(format!("{FILE_NAME}: invalid key \"{key}\" for {id}"));
    }
    for conflict in bindings.conflicts() {
        warnings.push(format!(
            "Keybinding conflict: {} is bound to {}",
            conflict.key,
            conflict.ids.join(", ")
        ));
    }
    LoadedKeybindings {
        bindings: Arc::new(bindings),
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_tui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use serde_json::json;

    #[test]
    fn every_action_has_a_unique_id_and_parsable_defaults() {
        let all = defaults();
        let mut ids: Vec<&str> = all.definitions().iter().map(|d| d.id).collect();
        let count = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), count);
        assert!(all.invalid_keys().is_empty());
        assert!(all.conflicts().is_empty());
        for (_, new) in LEGACY_IDS {
            assert!(all.has(new), "{new}");
        }
    }

    #[test]
    fn legacy_ids_migrate_and_new_ids_win() {
        let (entries, warnings) = user_entries(&json!({
            "submit": "ctrl+s",
            "expandTools": ["ctrl+e", "f2"],
            "clear": "ctrl+x",
            "app.clear": "ctrl+q",
            "tui.editor.undo": 5,
        }));
        assert_eq!(entries["tui.input.submit"], vec!["ctrl+s"]);
        assert_eq!(entries["app.tools.expand"], vec!["ctrl+e", "f2"]);
        assert_eq!(entries["app.clear"], vec!["ctrl+q"]);
        assert!(!entries.contains_key("clear"));
        assert_eq!(warnings.len(), 1, "{warnings:?}");
    }

    #[test]
    fn the_file_overrides_defaults_and_reports_conflicts() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(FILE_NAME),
            r#"{"tui.input.submit": "ctrl+s", "app.models.save": "ctrl+s", "app.exit": "bogus+k"}"#,
        )
        .unwrap();
        let loaded = load(dir.path());
        let kb = &loaded.bindings;
        let ctrl_s = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL);
        let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
        assert!(kb.matches(&ctrl_s, "tui.input.submit"));
        assert!(!kb.matches(&enter, "tui.input.submit"));
        assert!(kb.keys("app.exit").is_empty());
        insta::assert_snapshot!(loaded.warnings.join("\n"), @r#"
        keybindings.json: invalid key "bogus+k" for app.exit
        Keybinding conflict: ctrl+s is bound to tui.input.submit, app.models.save
        "#);
    }

    #[test]
    fn a_broken_file_warns_and_keeps_defaults() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE_NAME), "{nope").unwrap();
        let loaded = load(dir.path());
        assert_eq!(loaded.warnings.len(), 1);
        assert_eq!(loaded.bindings.keys("tui.input.submit"), vec!["enter"]);
        let missing = load(&dir.path().join("absent"));
        assert!(missing.warnings.is_empty());
    }
}
