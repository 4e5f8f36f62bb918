//! The rows `/settings` shows (pi's order, values and defaults) and where each
//! is saved in settings.json.

use pi_agent_core::QueueMode;
use serde_json::Value;

use std::collections::BTreeMap;

use pi_ai::ThinkingLevel;

use super::settings_view::{SettingRow, Submenu};
use crate::app::{App, supported_levels};
use crate::config::Settings;

fn bools() -> Vec<String> {
    vec!["true".to_owned(), "false".to_owned()]
}

fn list(values: &[&str]) -> Vec<String> {
    values.iter().map(|v| (*v).to_owned()).collect()
}

fn queue_mode_name(mode: QueueMode) -> &'static str {
    match mode {
        QueueMode::All => "all",
        QueueMode::OneAtATime => "one-at-a-time",
    }
}

/// Where a row is saved: a top-level key, or `object.key`.
pub(crate) fn storage(id: &str) -> Option<(&'static str, Option<&'static str>)> {
    Some(match id {
        "show-images" => ("terminal", Some("showImages")),
        "image-width-cells" => ("terminal", Some("imageWidthCells")),
        "auto-resize-images" => ("images", Some("autoResize")),
        "block-images" => ("images", Some("blockImages")),
        "skill-commands" => ("enableSkillCommands", None),
        "show-hardware-cursor" => ("showHardwareCursor", None),
        "editor-padding" => ("editorPaddingX", None),
        "autocomplete-max-visible" => ("autocompleteMaxVisible", None),
        "clear-on-shrink" => ("terminal", Some("clearOnShrink")),
        "terminal-progress" => ("terminal", Some("showTerminalProgress")),
        "transport" => ("transport", None),
        "hide-thinking" => ("hideThinkingBlock", None),
        "collapse-changelog" => ("collapseChangelog", None),
        "quiet-startup" => ("quietStartup", None),
        "install-telemetry" => ("enableInstallTelemetry", None),
        "double-escape-action" => ("doubleEscapeAction", None),
        "tree-filter-mode" => ("treeFilterMode", None),
        "warnings" => ("warnings", Some("anthropicExtraUsage")),
        "theme" => ("theme", None),
        _ => return None,
    })
}

/// A setting's current value as the list shows it: the value set during this run,
/// else the merged settings, else pi's default.
pub(crate) fn current(
    values: &BTreeMap<&'static str, String>,
    settings: &Settings,
    id: &str,
    default: &str,
) -> String {
    if let Some(value) = values.get(id) {
        return value.clone();
    }
    let Some((key, nested)) = storage(id) else {
        return default.to_owned();
    };
    let value = settings.extra.get(key).and_then(|v| match nested {
        Some(n) => v.get(n),
        None => Some(v),
    });
    let value = match (id, value) {
        ("auto-resize-images", None) => {
            settings.images.and_then(|i| i.auto_resize).map(Value::from)
        }
        ("block-images", None) => settings
            .images
            .and_then(|i| i.block_images)
            .map(Value::from),
        (_, v) => v.cloned(),
    };
    match value {
        Some(Value::String(s)) => s,
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => n.to_string(),
        _ => default.to_owned(),
    }
}

/// What the rows show besides the app's state.
pub(crate) struct Screen<'a> {
    /// Settings changed in `/settings` during this run (row id to value).
    pub values: &'a BTreeMap<&'static str, String>,
    /// Thinking blocks are hidden.
    pub hide_thinking: bool,
    /// The theme shown.
    pub theme_name: &'a str,
    /// The themes to choose from.
    pub theme_names: Vec<String>,
    /// The terminal draws images (pi then offers "Show images" and "Image width").
    pub supports_images: bool,
}

/// The rows of `/settings` with their current values.
pub(crate) fn settings_rows(app: &App, screen: Screen<'_>) -> Vec<SettingRow> {
    let settings = &app.settings;
    let row =
        |id: &'static str, label, description, default: &str, values: Vec<String>| SettingRow {
            id,
            label,
            description,
            value: current(screen.values, settings, id, default),
            values,
            submenu: None,
        };
    let model = app.agent.model();
    let level = app.agent.with_state(|s| s.thinking_level);
    let levels = if model.reasoning {
        supported_levels(&model)
    } else {
        vec![None]
    };
    let thinking_descriptions = |l: &str| match l {
        "off" => "No reasoning",
        "minimal" => "Very brief reasoning (~1k tokens)",
        "low" => "Light reasoning (~2k tokens)",
        "medium" => "Moderate reasoning (~8k tokens)",
        "high" => "Deep reasoning (~16k tokens)",
        _ => "Maximum reasoning (~32k tokens)",
    };
    let theme_name = screen.theme_name.to_owned();
    let mut rows = vec![
        SettingRow {
            value: app.auto_compaction().to_string(),
            ..row(
                "autocompact",
                "Auto-compact",
                "Automatically compact context when it gets too large",
                "true",
                bools(),
            )
        },
        row(
            "auto-resize-images",
            "Auto-resize images",
            "Resize large images to 2000x2000 max for better model compatibility",
            "true",
            bools(),
        ),
        row(
            "block-images",
            "Block images",
            "Prevent images from being sent to LLM providers",
            "false",
            bools(),
        ),
        row(
            "skill-commands",
            "Skill commands",
            "Register skills as /skill:name commands",
            "true",
            bools(),
        ),
        row(
            "show-hardware-cursor",
            "Show hardware cursor",
            "Show the terminal cursor while still positioning it for IME support",
            "false",
            bools(),
        ),
        row(
            "editor-padding",
            "Editor padding",
            "Horizontal padding for input editor (0-3)",
            "0",
            list(&["0", "1", "2", "3"]),
        ),
        row(
            "autocomplete-max-visible",
            "Autocomplete max items",
            "Max visible items in autocomplete dropdown (3-20)",
            "5",
            list(&["3", "5", "7", "10", "15", "20"]),
        ),
        row(
            "clear-on-shrink",
            "Clear on shrink",
            "Clear empty rows when content shrinks (may cause flicker)",
            "false",
            bools(),
        ),
        row(
            "terminal-progress",
            "Terminal progress",
            "Show OSC 9;4 progress indicators in the terminal tab bar",
            "false",
            bools(),
        ),
        SettingRow {
            value: queue_mode_name(app.agent.steering_mode()).to_owned(),
            ..row(
                "steering-mode",
                "Steering mode",
                "Enter while streaming queues steering messages. 'one-at-a-time': deliver one, wait for response. 'all': deliver all at once.",
                "",
                list(&["one-at-a-time", "all"]),
            )
        },
        SettingRow {
            value: queue_mode_name(app.agent.follow_up_mode()).to_owned(),
            ..row(
                "follow-up-mode",
                "Follow-up mode",
                "Alt+Enter queues follow-up messages until agent stops. 'one-at-a-time': deliver one, wait for response. 'all': deliver all at once.",
                "",
                list(&["one-at-a-time", "all"]),
            )
        },
        row(
            "transport",
            "Transport",
            "Preferred transport for providers that support multiple transports",
            settings.transport(),
            list(&["sse", "websocket", "websocket-cached", "auto"]),
        ),
        SettingRow {
            value: screen.hide_thinking.to_string(),
            ..row(
                "hide-thinking",
                "Hide thinking",
                "Hide thinking blocks in assistant responses",
                "false",
                bools(),
            )
        },
        row(
            "collapse-changelog",
            "Collapse changelog",
            "Show condensed changelog after updates",
            "false",
            bools(),
        ),
        row(
            "quiet-startup",
            "Quiet startup",
            "Disable verbose printing at startup",
            "false",
            bools(),
        ),
        row(
            "install-telemetry",
            "Install telemetry",
            "Send an anonymous version/update ping after changelog-detected updates",
            "true",
            bools(),
        ),
        row(
            "double-escape-action",
            "Double-escape action",
            "Action when pressing Escape twice with empty editor",
            "tree",
            list(&["tree", "fork", "none"]),
        ),
        row(
            "tree-filter-mode",
            "Tree filter mode",
            "Default filter when opening /tree",
            "default",
            list(&["default", "no-tools", "user-only", "labeled-only", "all"]),
        ),
        SettingRow {
            submenu: Some(Submenu {
                title: "Anthropic extra usage",
                description: "Warn when Anthropic subscription auth may use paid extra usage",
                options: vec![("true".to_owned(), None), ("false".to_owned(), None)],
            }),
            ..row(
                "warnings",
                "Warnings",
                "Enable or disable individual warnings",
                "true",
                Vec::new(),
            )
        },
        SettingRow {
            value: ThinkingLevel::setting_name(level).to_owned(),
            submenu: Some(Submenu {
                title: "Thinking Level",
                description: "Select reasoning depth for thinking-capable models",
                options: levels
                    .iter()
                    .map(|l| {
                        let name = ThinkingLevel::setting_name(*l);
                        (
                            name.to_owned(),
                            Some(thinking_descriptions(name).to_owned()),
                        )
                    })
                    .collect(),
            }),
            ..row(
                "thinking",
                "Thinking level",
                "Reasoning depth for thinking-capable models",
                "off",
                Vec::new(),
            )
        },
        SettingRow {
            value: theme_name,
            submenu: Some(Submenu {
                title: "Theme",
                description: "Select color theme",
                options: screen.theme_names.into_iter().map(|n| (n, None)).collect(),
            }),
            ..row(
                "theme",
                "Theme",
                "Color theme for the interface",
                "dark",
                Vec::new(),
            )
        },
    ];
    if screen.supports_images {
        let image_rows = [
            row(
                "show-images",
                "Show images",
                "Render images inline in terminal",
                "true",
                bools(),
            ),
            row(
                "image-width-cells",
                "Image width",
                "Preferred inline image width in terminal cells",
                "60",
                list(&["60", "80", "120"]),
            ),
        ];
        rows.splice(1..1, image_rows);
    }
    rows
}
