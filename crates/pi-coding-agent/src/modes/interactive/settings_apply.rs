//! The rows `/settings` shows (pi's order, values and defaults) and what changing one
//! does: the app or the screen changes at once and the value is saved to the global
//! settings.json through the settings writer.

use pi_agent_core::QueueMode;
use serde_json::{Value, json};

use super::settings_view::{SettingRow, Submenu};
use super::ui::Ui;
use pi_ai::ThinkingLevel;

use crate::app::supported_levels;
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
fn storage(id: &str) -> Option<(&'static str, Option<&'static str>)> {
    Some(match id {
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
fn stored(ui: &Ui, settings: &Settings, id: &str, default: &str) -> String {
    if let Some(value) = ui.extras.values.get(id) {
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

impl Ui {
    /// The rows of `/settings` with their current values.
    pub(crate) fn settings_rows(&self) -> Vec<SettingRow> {
        let settings = &self.app.settings;
        let row =
            |id: &'static str, label, description, default: &str, values: Vec<String>| SettingRow {
                id,
                label,
                description,
                value: stored(self, settings, id, default),
                values,
                submenu: None,
            };
        let model = self.app.agent.model();
        let level = self.app.agent.with_state(|s| s.thinking_level);
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
        let theme_name = self.theme.name().to_owned();
        vec![
            SettingRow {
                value: self.app.auto_compaction().to_string(),
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
                value: queue_mode_name(self.app.agent.steering_mode()).to_owned(),
                ..row(
                    "steering-mode",
                    "Steering mode",
                    "Enter while streaming queues steering messages. 'one-at-a-time': deliver one, wait for response. 'all': deliver all at once.",
                    "",
                    list(&["one-at-a-time", "all"]),
                )
            },
            SettingRow {
                value: queue_mode_name(self.app.agent.follow_up_mode()).to_owned(),
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
                value: self.hide_thinking.to_string(),
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
                    options: self
                        .extras
                        .themes
                        .names()
                        .into_iter()
                        .map(|n| (n, None))
                        .collect(),
                }),
                ..row(
                    "theme",
                    "Theme",
                    "Color theme for the interface",
                    "dark",
                    Vec::new(),
                )
            },
        ]
    }

    /// Applies and saves a changed setting.
    pub(crate) fn apply_setting(&mut self, id: &'static str, value: &str) {
        let flag = value == "true";
        match id {
            "autocompact" => {
                self.app.set_auto_compaction(flag);
                self.footer.auto_compact = flag;
                return;
            }
            "steering-mode" | "follow-up-mode" => {
                let mode = if value == "all" {
                    QueueMode::All
                } else {
                    QueueMode::OneAtATime
                };
                if id == "steering-mode" {
                    self.app.set_steering_mode(mode);
                } else {
                    self.app.set_follow_up_mode(mode);
                }
                return;
            }
            "thinking" => {
                if let Ok(level) = ThinkingLevel::parse_setting(value) {
                    self.app.set_thinking_level(level);
                    self.refresh_footer();
                    self.update_border();
                }
                return;
            }
            "hide-thinking" => {
                self.hide_thinking = flag;
                self.reprint = true;
            }
            "editor-padding" => self.editor.set_padding_x(value.parse().unwrap_or(0)),
            "autocomplete-max-visible" => self
                .editor
                .set_autocomplete_max_visible(value.parse().unwrap_or(5)),
            "theme" => self.preview_theme(value),
            // As pi's `agent.transport = ...`: the next call uses it.
            "transport" => {
                let transport = crate::app::transport_setting(value);
                self.app
                    .agent
                    .update_settings(|s| s.stream_options.transport = Some(transport));
            }
            _ => {}
        }
        self.extras.values.insert(id, value.to_owned());
        let Some((key, nested)) = storage(id) else {
            return;
        };
        let json_value = match value {
            "true" | "false" => json!(flag),
            v if id == "editor-padding" || id == "autocomplete-max-visible" => {
                json!(v.parse::<u64>().unwrap_or(0))
            }
            v => json!(v),
        };
        let writer = &self.app.settings_writer;
        let saved = match nested {
            Some(nested) => writer.set_nested(key, nested, json_value),
            None => writer.set(&[(key, Some(json_value))]),
        };
        if let Err(e) = saved {
            self.error(format!("Cannot save settings: {e}"));
        }
    }

    /// Shows the theme `name` (settings preview, or a change before it is saved).
    pub(crate) fn preview_theme(&mut self, name: &str) {
        if name == self.theme.name() {
            return;
        }
        match self.extras.themes.load(name, self.theme.mode()) {
            Ok(theme) => self.set_theme(theme),
            Err(e) => self.error(format!("Failed to load theme \"{name}\": {e}")),
        }
    }
}
