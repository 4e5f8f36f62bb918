//! What changing a `/settings` row does: the app or the screen changes at
//! once and the value is saved to the global settings.json through the
//! settings writer.

use pi_agent_core::QueueMode;
use pi_ai::ThinkingLevel;
use serde_json::json;

use super::Ui;
use crate::modes::interactive::settings_rows::storage;

impl Ui {
    /// Applies and saves a changed setting.
    pub(super) fn apply_setting(&mut self, id: &'static str, value: &str) {
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
                self.view.hide_thinking = flag;
                self.view.reprint = true;
            }
            "editor-padding" => self.editor.set_padding_x(value.parse().unwrap_or(0)),
            "autocomplete-max-visible" => self
                .editor
                .set_autocomplete_max_visible(value.parse().unwrap_or(5)),
            "theme" => self.preview_theme(value),
            // As pi: the `/` menu offers the skills again, or no longer.
            "skill-commands" => self
                .look
                .skill_commands
                .store(flag, std::sync::atomic::Ordering::Relaxed),
            "show-images" => {
                self.view.images.protocol = flag.then(pi_tui::image::protocol_from_env).flatten();
                self.view.reprint = true;
            }
            "image-width-cells" => {
                self.view.images.max_width_cells = value.parse().unwrap_or(60);
                self.view.reprint = true;
            }
            // As pi's `agent.transport = ...`: the next call uses it.
            "transport" => {
                let transport = crate::app::transport_setting(value);
                self.app
                    .agent
                    .update_settings(|s| s.stream_options.transport = Some(transport));
            }
            _ => {}
        }
        self.look.values.insert(id, value.to_owned());
        let Some((key, nested)) = storage(id) else {
            return;
        };
        let json_value = match value {
            "true" | "false" => json!(flag),
            v if id == "editor-padding"
                || id == "autocomplete-max-visible"
                || id == "image-width-cells" =>
            {
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
}
