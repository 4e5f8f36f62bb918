//! `settings.json`: pi's user settings, in a global layer
//! (`<agent dir>/settings.json`) and a project layer (`<cwd>/.pi/settings.json`)
//! that overrides it key by key (objects one level deep, as pi merges).
//!
//! Loading never fails: a file that is not JSON is reported as a
//! [`SettingsWarning`] and counts as empty, and a key of the wrong type is
//! ignored (its default applies), as pi ignores it. Changes the app makes
//! (default model, thinking level) are written back by [`SettingsWriter`].

mod layers;
pub(crate) mod lock;
mod writer;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use crate::compaction::CompactionSettings;
pub use layers::{SettingsScope, SettingsWarning};
pub use writer::SettingsWriter;

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
    /// Longest server-requested delay honoured (`retry.provider.maxRetryDelayMs`;
    /// the legacy `retry.maxDelayMs` is migrated there on load, as in pi).
    #[serde(skip)]
    pub max_delay_ms: u64,
    /// Longest wait for response headers (`retry.provider.timeoutMs`, pi's key).
    #[serde(skip)]
    pub timeout_ms: Option<u64>,
    /// Longest silence mid-stream (`retry.provider.idleTimeoutMs`, pi-rs only).
    #[serde(skip)]
    pub idle_timeout_ms: Option<u64>,
    /// Retries of one provider request (`retry.provider.maxRetries`; `None`:
    /// the transport's default).
    #[serde(skip)]
    pub provider_max_retries: Option<u32>,
}

impl Default for RetrySettings {
    fn default() -> Self {
        Self {
            enabled: true,
            max_retries: 3,
            base_delay_ms: 2_000,
            max_delay_ms: 60_000,
            timeout_ms: None,
            idle_timeout_ms: None,
            provider_max_retries: None,
        }
    }
}

/// `images`: how pictures are handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ImageSettings {
    /// Shrink large images before sending them (pi's default: true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_resize: Option<bool>,
    /// Never send images to the model (pi's default: false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_images: Option<bool>,
}

/// The settings pi-rs reads with a type; every other key is kept in
/// `extra` and read through the accessors below.
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
    /// Shell for the bash tool and `!` commands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shell_path: Option<String>,
    /// Prefix prepended (with a newline) to every bash command.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shell_command_prefix: Option<String>,
    /// Token budgets per thinking level.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_budgets: Option<pi_ai::ThinkingBudgets>,
    /// Where session files go (`~` expanded); below `--session-dir` and
    /// `PI_CODING_AGENT_SESSION_DIR`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_dir: Option<String>,
    /// Image handling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images: Option<ImageSettings>,
    /// Every other key, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The merged settings together with the problems met while loading them.
#[derive(Debug, Clone, Default)]
pub struct LoadedSettings {
    /// The merged settings (defaults where a file was unreadable).
    pub settings: Settings,
    /// One warning per unreadable file.
    pub warnings: Vec<SettingsWarning>,
    /// Writes changes back to the global file (refuses when it was unreadable).
    pub writer: SettingsWriter,
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

    /// `images.autoResize` (default true).
    pub fn image_auto_resize(&self) -> bool {
        self.images.and_then(|i| i.auto_resize).unwrap_or(true)
    }

    /// `images.blockImages` (default false).
    pub fn block_images(&self) -> bool {
        self.images.and_then(|i| i.block_images).unwrap_or(false)
    }

    /// `sessionDir` with a leading `~` expanded against `home`.
    pub fn session_dir(&self, home: &Path) -> Option<PathBuf> {
        self.session_dir
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(|s| expand_tilde(s, home))
    }

    /// `enabledModels`: model patterns scoping model cycling (as `--models`).
    pub fn enabled_models(&self) -> Option<Vec<String>> {
        self.extra
            .get("enabledModels")
            .and_then(Value::as_array)
            .map(|_| self.string_list("enabledModels"))
    }

    /// `theme`.
    pub fn theme(&self) -> Option<&str> {
        self.extra.get("theme").and_then(Value::as_str)
    }

    /// `transport` (default `auto`).
    pub fn transport(&self) -> &str {
        self.extra
            .get("transport")
            .and_then(Value::as_str)
            .unwrap_or("auto")
    }

    /// `hideThinkingBlock` (default false).
    pub fn hide_thinking_block(&self) -> bool {
        self.extra_bool("hideThinkingBlock").unwrap_or(false)
    }

    /// `quietStartup` (default false).
    pub fn quiet_startup(&self) -> bool {
        self.extra_bool("quietStartup").unwrap_or(false)
    }

    /// `enableSkillCommands` (default true).
    pub fn enable_skill_commands(&self) -> bool {
        self.extra_bool("enableSkillCommands").unwrap_or(true)
    }

    /// `terminal.showImages` (default true).
    pub fn show_images(&self) -> bool {
        self.extra_path(&["terminal", "showImages"])
            .and_then(Value::as_bool)
            .unwrap_or(true)
    }

    /// `terminal.imageWidthCells`: the widest an image is drawn, in cells
    /// (default 60, at least 1).
    pub fn image_width_cells(&self) -> usize {
        self.extra_path(&["terminal", "imageWidthCells"])
            .and_then(Value::as_f64)
            .filter(|w| w.is_finite())
            .map_or(60, |w| w.floor().clamp(1.0, 10_000.0) as usize)
    }

    /// `markdown.codeBlockIndent`: what code blocks are indented with
    /// (default two spaces).
    pub fn code_block_indent(&self) -> &str {
        self.extra_path(&["markdown", "codeBlockIndent"])
            .and_then(Value::as_str)
            .unwrap_or("  ")
    }

    /// `doubleEscapeAction` (default `tree`).
    pub fn double_escape_action(&self) -> &str {
        self.extra
            .get("doubleEscapeAction")
            .and_then(Value::as_str)
            .unwrap_or("tree")
    }

    /// `editorPaddingX` (default 0).
    pub fn editor_padding_x(&self) -> u64 {
        self.extra
            .get("editorPaddingX")
            .and_then(Value::as_u64)
            .unwrap_or(0)
    }

    /// `autocompleteMaxVisible` (default 5).
    pub fn autocomplete_max_visible(&self) -> u64 {
        self.extra
            .get("autocompleteMaxVisible")
            .and_then(Value::as_u64)
            .unwrap_or(5)
    }

    /// `branchSummary.reserveTokens` (default 16384).
    pub fn branch_summary_reserve_tokens(&self) -> u64 {
        self.extra_path(&["branchSummary", "reserveTokens"])
            .and_then(Value::as_u64)
            .unwrap_or(16_384)
    }

    /// A string list setting (`packages`, `extensions`, `skills`, `prompts`,
    /// `themes`): its strings, empty when unset.
    pub fn string_list(&self, key: &str) -> Vec<String> {
        self.extra
            .get(key)
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    }

    fn extra_bool(&self, key: &str) -> Option<bool> {
        self.extra.get(key).and_then(Value::as_bool)
    }

    fn extra_path(&self, path: &[&str]) -> Option<&Value> {
        let (first, rest) = path.split_first()?;
        rest.iter()
            .try_fold(self.extra.get(*first)?, |value, key| value.get(key))
    }

    /// Loads the global layer from `agent_dir` and the project layer from
    /// `cwd/.pi`, project keys overriding global ones. Missing files are
    /// empty; unreadable ones are empty and reported.
    pub fn load(agent_dir: &Path, cwd: &Path) -> LoadedSettings {
        let global_path = agent_dir.join("settings.json");
        let project_path = cwd.join(".pi").join("settings.json");
        let mut warnings = Vec::new();
        let global = layers::read_layer(&global_path, SettingsScope::Global, &mut warnings);
        let project = layers::read_layer(&project_path, SettingsScope::Project, &mut warnings);
        let global_failed = global.is_none();
        let settings = Self::from_layers(global.unwrap_or_default(), project.unwrap_or_default());
        LoadedSettings {
            settings,
            warnings,
            writer: SettingsWriter::new(global_path, !global_failed),
        }
    }

    /// Merges two layers (the second wins; objects merge one level deep)
    /// and reads the typed keys, ignoring values of the wrong type.
    pub fn from_layers(mut global: Map<String, Value>, mut project: Map<String, Value>) -> Self {
        layers::migrate(&mut global);
        layers::migrate(&mut project);
        let merged = layers::merge(global, project);
        layers::typed(merged)
    }
}

/// `~` and `~/...` expanded against `home` (pi's `expandTildePath`).
pub fn expand_tilde(path: &str, home: &Path) -> PathBuf {
    if path == "~" {
        home.to_path_buf()
    } else if let Some(rest) = path.strip_prefix("~/") {
        home.join(rest)
    } else {
        PathBuf::from(path)
    }
}

#[cfg(test)]
mod tests;
