//! `settings.json`: pi's user settings, in a global layer
//! (`<agent dir>/settings.json`) and a project layer (`<cwd>/.pi/settings.json`)
//! that overrides it key by key (nested objects merged).

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::ConfigError;
pub use crate::compaction::CompactionSettings;

/// Automatic retry of transient provider errors (`retry`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RetrySettings {
    /// Retry automatically.
    pub enabled: bool,
    /// Retries after the first failure.
    pub max_retries: u32,
    /// First delay; doubled per retry.
    pub base_delay_ms: u64,
    /// Longest server-requested delay honoured.
    pub max_delay_ms: u64,
    /// Transport settings of each provider call (`retry.provider`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<ProviderRetrySettings>,
}

/// `retry.provider`: timeouts and retries of one HTTP call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ProviderRetrySettings {
    /// Longest wait for response headers (pi's key; default 600 000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Longest silence mid-stream (pi-rs only; default 300 000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idle_timeout_ms: Option<u64>,
    /// Longest server-requested retry delay honoured (pi's key; default 60 000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_retry_delay_ms: Option<u64>,
}

impl Default for RetrySettings {
    fn default() -> Self {
        Self {
            enabled: true,
            max_retries: 3,
            base_delay_ms: 2_000,
            max_delay_ms: 60_000,
            provider: None,
        }
    }
}

/// The settings pi-rs reads; every other key is kept in `extra`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// Default provider.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_provider: Option<String>,
    /// Default model id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_model: Option<String>,
    /// Default thinking level (`off`, `minimal`, ..., `xhigh`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_thinking_level: Option<String>,
    /// `one-at-a-time` or `all`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steering_mode: Option<String>,
    /// `one-at-a-time` or `all`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub follow_up_mode: Option<String>,
    /// Compaction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction: Option<CompactionSettings>,
    /// Auto-retry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<RetrySettings>,
    /// Shell for the bash tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shell_path: Option<String>,
    /// Prefix prepended to every bash command.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shell_command_prefix: Option<String>,
    /// Token budgets per thinking level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_budgets: Option<pi_ai::ThinkingBudgets>,
    /// Every other key, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Settings {
    /// Compaction settings with pi's defaults filled in.
    pub fn compaction(&self) -> CompactionSettings {
        self.compaction.unwrap_or_default()
    }

    /// Retry settings with pi's defaults filled in.
    pub fn retry(&self) -> RetrySettings {
        self.retry.unwrap_or_default()
    }

    /// Loads the global layer from `agent_dir` and the project layer from
    /// `cwd/.pi`, project keys overriding global ones. Missing files are empty.
    pub fn load(agent_dir: &Path, cwd: &Path) -> Result<Self, ConfigError> {
        let global = read_layer(&agent_dir.join("settings.json"))?;
        let project = read_layer(&cwd.join(".pi").join("settings.json"))?;
        Self::from_layers(global, project, &agent_dir.join("settings.json"))
    }

    /// Merges two JSON layers (the second wins; objects merge key by key).
    pub fn from_layers(global: Value, project: Value, origin: &Path) -> Result<Self, ConfigError> {
        let mut merged = global;
        merge(&mut merged, project);
        if merged.is_null() {
            return Ok(Self::default());
        }
        serde_json::from_value(merged).map_err(|source| ConfigError::Json {
            path: origin.to_path_buf(),
            source,
        })
    }
}

fn read_layer(path: &Path) -> Result<Value, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok(Value::Null),
        Ok(text) => serde_json::from_str(&text).map_err(|source| ConfigError::Json {
            path: path.to_path_buf(),
            source,
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Value::Null),
        Err(source) => Err(ConfigError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

fn merge(base: &mut Value, overlay: Value) {
    match (base, overlay) {
        (_, Value::Null) => {}
        (Value::Object(base), Value::Object(overlay)) => {
            for (key, value) in overlay {
                match base.get_mut(&key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        base.insert(key, value);
                    }
                }
            }
        }
        (base, overlay) => *base = overlay,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn defaults_are_pis() {
        let settings = Settings::default();
        assert_eq!(
            settings.compaction(),
            CompactionSettings {
                enabled: true,
                reserve_tokens: 16_384,
                keep_recent_tokens: 20_000
            }
        );
        assert_eq!(
            settings.retry(),
            RetrySettings {
                enabled: true,
                max_retries: 3,
                base_delay_ms: 2_000,
                max_delay_ms: 60_000,
                provider: None
            }
        );
    }

    #[test]
    fn project_layer_overrides_nested_keys_only() {
        let global = json!({"defaultModel": "a", "compaction": {"enabled": false, "reserveTokens": 1000}, "theme": "dark"});
        let project = json!({"compaction": {"reserveTokens": 2000}, "retry": {"maxRetries": 5}});
        let settings = Settings::from_layers(global, project, Path::new("settings.json")).unwrap();
        assert_eq!(settings.default_model.as_deref(), Some("a"));
        assert_eq!(
            settings.compaction(),
            CompactionSettings {
                enabled: false,
                reserve_tokens: 2000,
                keep_recent_tokens: 20_000
            }
        );
        assert_eq!(settings.retry().max_retries, 5);
        assert_eq!(settings.retry().base_delay_ms, 2_000);
        assert_eq!(settings.extra.get("theme"), Some(&json!("dark")));
    }

    #[test]
    fn files_are_read_from_both_layers() {
        let agent = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        std::fs::write(
            agent.path().join("settings.json"),
            r#"{"defaultProvider":"anthropic","steeringMode":"all"}"#,
        )
        .unwrap();
        std::fs::create_dir(cwd.path().join(".pi")).unwrap();
        std::fs::write(
            cwd.path().join(".pi/settings.json"),
            r#"{"steeringMode":"one-at-a-time"}"#,
        )
        .unwrap();
        let settings = Settings::load(agent.path(), cwd.path()).unwrap();
        assert_eq!(settings.default_provider.as_deref(), Some("anthropic"));
        assert_eq!(settings.steering_mode.as_deref(), Some("one-at-a-time"));
        assert_eq!(
            Settings::load(&agent.path().join("missing"), cwd.path())
                .unwrap()
                .default_provider,
            None
        );
    }

    #[test]
    fn invalid_json_names_the_file() {
        let agent = tempfile::tempdir().unwrap();
        std::fs::write(agent.path().join("settings.json"), "{nope").unwrap();
        let err = Settings::load(agent.path(), agent.path()).unwrap_err();
        assert!(err.to_string().contains("settings.json"), "{err}");
    }
}
