//! Reading one settings layer, pi's migrations of old keys, the merge of
//! the two layers and the lenient typed read of the result.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::Settings;

/// Which settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsScope {
    /// `<agent dir>/settings.json`.
    Global,
    /// `<cwd>/.pi/settings.json`.
    Project,
}

impl SettingsScope {
    /// `global` or `project`, as pi names them.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Global => "global",
            Self::Project => "project",
        }
    }
}

/// A settings file that could not be used; its settings are pi's defaults.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "({} settings) {}: {problem}; using the default settings instead of this file",
    scope.as_str(),
    path.display()
)]
pub struct SettingsWarning {
    /// Global or project.
    pub scope: SettingsScope,
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub problem: String,
}

/// Reads one layer: `Some(empty)` when the file is missing or blank,
/// `None` (with a warning) when it cannot be read or is not a JSON object.
pub(super) fn read_layer(
    path: &Path,
    scope: SettingsScope,
    warnings: &mut Vec<SettingsWarning>,
) -> Option<Map<String, Value>> {
    let warn = |problem: String, warnings: &mut Vec<SettingsWarning>| {
        warnings.push(SettingsWarning {
            scope,
            path: path.to_path_buf(),
            problem,
        });
        None
    };
    let text =
        match crate::file_read::read_regular_to_string(path, crate::file_read::CONFIG_FILE_LIMIT) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(Map::new()),
            Err(e) => return warn(e.to_string(), warnings),
        };
    if text.is_empty() {
        return Some(Map::new());
    }
    match parse(&text) {
        Ok(map) => Some(map),
        Err(problem) => warn(problem.to_string(), warnings),
    }
}

/// Why a settings file's text is not a settings object.
#[derive(Debug, thiserror::Error)]
pub(super) enum LayerError {
    /// Not JSON.
    #[error("invalid JSON: {0}")]
    Json(#[source] serde_json::Error),
    /// JSON, but not an object (pi reads it as no keys at all, silently, and
    /// writes over it; here it is a warning, and the file is left as it is).
    #[error("not a JSON object but {0}")]
    NotAnObject(&'static str),
}

/// A file's text as a settings object (migrated later, with the merge).
pub(super) fn parse(text: &str) -> Result<Map<String, Value>, LayerError> {
    match serde_json::from_str::<Value>(text).map_err(LayerError::Json)? {
        Value::Object(map) => Ok(map),
        other => Err(LayerError::NotAnObject(crate::config::json_kind(&other))),
    }
}

/// pi's migrations of old keys: `queueMode` -> `steeringMode`, the
/// `websockets` boolean -> `transport`, the old `skills` object -> a list,
/// `retry.maxDelayMs` -> `retry.provider.maxRetryDelayMs`.
pub(super) fn migrate(map: &mut Map<String, Value>) {
    if !map.contains_key("steeringMode")
        && let Some(mode) = map.remove("queueMode")
    {
        map.insert("steeringMode".to_owned(), mode);
    }
    if !map.contains_key("transport")
        && let Some(Value::Bool(ws)) = map.get("websockets").cloned()
    {
        map.remove("websockets");
        let transport = if ws { "websocket" } else { "sse" };
        map.insert("transport".to_owned(), Value::from(transport));
    }
    if let Some(Value::Object(skills)) = map.get("skills").cloned() {
        if let Some(flag) = skills.get("enableSkillCommands")
            && !map.contains_key("enableSkillCommands")
        {
            map.insert("enableSkillCommands".to_owned(), flag.clone());
        }
        match skills.get("customDirectories") {
            Some(Value::Array(dirs)) if !dirs.is_empty() => {
                map.insert("skills".to_owned(), Value::Array(dirs.clone()));
            }
            _ => {
                map.remove("skills");
            }
        }
    }
    if let Some(Value::Object(retry)) = map.get_mut("retry") {
        let legacy = retry.remove("maxDelayMs");
        if let Some(ms) = legacy.filter(Value::is_number) {
            let provider = retry
                .entry("provider")
                .or_insert_with(|| Value::Object(Map::new()));
            if !provider.is_object() {
                *provider = Value::Object(Map::new());
            }
            if let Value::Object(provider) = provider
                && provider.get("maxRetryDelayMs").is_none_or(Value::is_null)
            {
                provider.insert("maxRetryDelayMs".to_owned(), ms);
            }
        }
    }
}

/// pi's merge: `overlay` keys win; when both values are objects, their
/// keys are combined one level deep (the overlay's nested values win whole).
pub(super) fn merge(base: Map<String, Value>, overlay: Map<String, Value>) -> Map<String, Value> {
    let mut result = base;
    for (key, value) in overlay {
        match (result.get_mut(&key), value) {
            (Some(Value::Object(base)), Value::Object(over)) => {
                for (k, v) in over {
                    base.insert(k, v);
                }
            }
            (_, value) => {
                result.insert(key, value);
            }
        }
    }
    result
}

/// The typed settings of `merged`; a key whose value has the wrong type is
/// ignored (for an object, only its wrongly typed members), so its default
/// applies, as in pi.
pub(super) fn typed(merged: Map<String, Value>) -> Settings {
    let provider_ms = |key: &str| {
        merged
            .get("retry")
            .and_then(|r| r.get("provider"))
            .and_then(|p| p.get(key))
            .and_then(Value::as_u64)
    };
    let max_retry_delay = provider_ms("maxRetryDelayMs");
    let (timeout, idle_timeout) = (provider_ms("timeoutMs"), provider_ms("idleTimeoutMs"));
    let provider_retries = provider_ms("maxRetries").and_then(|n| u32::try_from(n).ok());
    let mut settings = match serde_json::from_value::<Settings>(Value::Object(merged.clone())) {
        Ok(settings) => settings,
        Err(_) => {
            let mut kept = Map::new();
            for (key, value) in merged {
                if let Some(value) = usable(&key, value) {
                    kept.insert(key, value);
                }
            }
            serde_json::from_value(Value::Object(kept)).unwrap_or_default()
        }
    };
    if let Some(retry) = settings.retry.as_mut() {
        if let Some(ms) = max_retry_delay {
            retry.max_delay_ms = ms;
        }
        retry.timeout_ms = timeout;
        retry.idle_timeout_ms = idle_timeout;
        retry.provider_max_retries = provider_retries;
    }
    settings
}

/// `value` for `key` when it reads as a setting; an object keeps the
/// members that do.
fn usable(key: &str, value: Value) -> Option<Value> {
    let reads = |v: &Value| {
        let mut one = Map::new();
        one.insert(key.to_owned(), v.clone());
        serde_json::from_value::<Settings>(Value::Object(one)).is_ok()
    };
    if reads(&value) {
        return Some(value);
    }
    let Value::Object(members) = value else {
        tracing::warn!("settings: ignoring `{key}`: wrong type");
        return None;
    };
    let mut kept = Map::new();
    for (name, member) in members {
        let mut probe = Map::new();
        probe.insert(name.clone(), member.clone());
        if reads(&Value::Object(probe)) {
            kept.insert(name, member);
        } else {
            tracing::warn!("settings: ignoring `{key}.{name}`: wrong type");
        }
    }
    Some(Value::Object(kept))
}
