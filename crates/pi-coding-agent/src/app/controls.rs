//! What a client changes or asks between prompts, with pi's rules and
//! events: model and thinking level (clamped to what the model supports,
//! `thinking_level_changed`), the steering and follow-up queues
//! (`queue_update`), the session name (`session_info_changed`), and the
//! state pi reports (`isCompacting`, `pendingMessageCount`, `contextUsage`).

use std::sync::atomic::Ordering;

use pi_agent_core::AgentMessage;
use pi_ai::{ImageContent, Message, Model, ThinkingLevel};
use serde::Serialize;
use serde_json::{Value, json};

use super::{App, AppError, SessionEvent, lock};
use crate::compaction::{calculate_context_tokens, estimate_context_tokens};
use crate::messages::CodingMessage;
use crate::session::SessionEntry;

/// `level` clamped to what `model` supports (pi's `clampThinkingLevel`;
/// everything is off for a model without reasoning).
pub fn clamp_level(model: &Model, level: Option<ThinkingLevel>) -> Option<ThinkingLevel> {
    use pi_providers_openai_responses::{LevelMapping, clamp_thinking_level, level_mapping};
    if !model.reasoning {
        return None;
    }
    match level {
        Some(level) => clamp_thinking_level(model, level),
        // `off` mapped to null in the catalog (gpt-5.5): the lowest level
        // above it, as pi clamps.
        None if level_mapping(model, "off") == LevelMapping::Unsupported => {
            clamp_thinking_level(model, ThinkingLevel::Minimal)
        }
        None => None,
    }
}

/// The levels `model` supports, `off` first (pi's `getSupportedThinkingLevels`).
pub fn supported_levels(model: &Model) -> Vec<Option<ThinkingLevel>> {
    ThinkingLevel::SETTINGS
        .into_iter()
        .filter(|level| clamp_level(model, *level) == *level)
        .collect()
}

/// A number as JavaScript writes it in JSON: whole numbers without `.0`.
pub fn js_number(value: f64) -> Value {
    const SAFE: f64 = 9_007_199_254_740_991.0;
    if value.fract() == 0.0 && value.abs() <= SAFE {
        return json!(value as i64);
    }
    json!(value)
}

/// pi's `ContextUsage` (rpc `get_session_stats`' `contextUsage`:
/// `{tokens, contextWindow, percent}`, tokens and percent `null` when unknown).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextUsage {
    /// Estimated context tokens (`None` after a compaction, until an answer reports usage).
    pub tokens: Option<u64>,
    /// The model's context window.
    pub context_window: u64,
    /// `tokens` in percent of the window, written as JavaScript writes numbers.
    #[serde(serialize_with = "percent_number")]
    pub percent: Option<f64>,
}

fn percent_number<S: serde::Serializer>(percent: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    percent.map(js_number).serialize(s)
}

/// A user message of `text` followed by `images`.
pub(super) fn user_message(text: &str, images: Vec<ImageContent>) -> AgentMessage<CodingMessage> {
    let mut content = vec![pi_ai::UserBlock::text(text)];
    content.extend(images.into_iter().map(pi_ai::UserBlock::Image));
    AgentMessage::Standard(Message::User(pi_ai::UserMessage {
        content: content.into(),
        timestamp: pi_ai::now_ms(),
        ..Default::default()
    }))
}

impl App {
    /// Switches the model and records a `model_change`; the thinking level
    /// carries over, clamped to the new model (coming from a model without
    /// reasoning, it starts from the default level, as in pi).
    pub fn set_model(&self, model: Model) {
        self.select_model(model, "set");
    }

    /// [`App::set_model`], telling extensions (`model_select`) where the
    /// change came from (`set`, `cycle`).
    pub(super) fn select_model(&self, model: Model, source: &str) {
        let previous = self.agent.model();
        let level = if self.agent.model().reasoning {
            self.agent.with_state(|s| s.thinking_level)
        } else {
            *lock(&self.default_thinking)
        };
        if let Err(e) = self
            .session()
            .append_model_change(model.provider.as_str(), &model.id)
        {
            tracing::error!("cannot save the model change: {e}");
        }
        // As pi: the chosen model becomes the default for the next start.
        if let Err(e) = self.settings_writer.set(&[
            ("defaultProvider", Some(json!(model.provider.as_str()))),
            ("defaultModel", Some(json!(model.id))),
        ]) {
            tracing::error!("cannot save the default model: {e}");
        }
        self.agent.set_model(model.clone());
        self.set_thinking_level(level);
        self.extensions.notify(crate::extensions::ModelSelectEvent {
            model,
            previous_model: Some(previous),
            source: source.to_owned(),
        });
    }

    /// Sets the thinking level, clamped to what the model supports; a
    /// change is recorded as a `thinking_level_change`, becomes the default
    /// level and is announced with `thinking_level_changed`.
    pub fn set_thinking_level(&self, level: Option<ThinkingLevel>) {
        let model = self.agent.model();
        let level = clamp_level(&model, level);
        let previous = self.agent.with_state(|s| s.thinking_level);
        self.agent.set_thinking_level(level);
        if level == previous {
            return;
        }
        if let Err(e) = self
            .session()
            .append_thinking_level_change(ThinkingLevel::setting_name(level))
        {
            tracing::error!("cannot save the thinking level change: {e}");
        }
        if model.reasoning || level.is_some() {
            *lock(&self.default_thinking) = level;
        }
        // As pi: a changed level of a reasoning model is the default for the next start.
        if model.reasoning
            && let Err(e) = self.settings_writer.set(&[(
                "defaultThinkingLevel",
                Some(json!(ThinkingLevel::setting_name(level))),
            )])
        {
            tracing::error!("cannot save the default thinking level: {e}");
        }
        self.emit(&SessionEvent::ThinkingLevelChanged { level });
        self.extensions
            .notify(crate::extensions::ThinkingLevelSelectEvent {
                level: ThinkingLevel::setting_name(level).to_owned(),
                previous_level: ThinkingLevel::setting_name(previous).to_owned(),
            });
    }

    /// The next supported level after the current one (`None` when the
    /// model has no reasoning).
    pub fn cycle_thinking_level(&self) -> Option<Option<ThinkingLevel>> {
        let model = self.agent.model();
        if !model.reasoning {
            return None;
        }
        let levels = supported_levels(&model);
        let current = self.agent.with_state(|s| s.thinking_level);
        let next = levels
            .iter()
            .position(|l| *l == current)
            .map_or(0, |i| (i + 1) % levels.len());
        let level = levels.get(next).copied().flatten();
        self.set_thinking_level(level);
        Some(level)
    }

    /// Queues a steering message (expanded like a prompt) and announces the queues.
    pub fn steer(&self, text: &str, images: Vec<ImageContent>) {
        let text = &self.expand_input(text);
        self.hub.update_queues(|q| {
            q.steering.push(text.to_owned());
            true
        });
        self.agent.steer(user_message(text, images));
    }

    /// Queues a follow-up message (expanded like a prompt) and announces the queues.
    pub fn follow_up(&self, text: &str, images: Vec<ImageContent>) {
        let text = &self.expand_input(text);
        self.hub.update_queues(|q| {
            q.follow_up.push(text.to_owned());
            true
        });
        self.agent.follow_up(user_message(text, images));
    }

    /// Queued steering plus follow-up messages (pi's `pendingMessageCount`).
    pub fn pending_message_count(&self) -> usize {
        let queues = lock(&self.hub.queues);
        queues.steering.len() + queues.follow_up.len()
    }

    /// Names the session and announces it with `session_info_changed`.
    pub fn set_session_name(&self, name: &str) -> Result<(), AppError> {
        let name = {
            let mut session = self.session();
            session.append_session_info(name)?;
            session.session_name().map(str::to_owned)
        };
        self.emit(&SessionEvent::SessionInfoChanged { name });
        Ok(())
    }

    /// Whether a compaction runs now.
    pub fn is_compacting(&self) -> bool {
        self.compactions.load(Ordering::SeqCst) > 0
    }

    pub(super) fn compaction_started(&self) {
        self.compactions.fetch_add(1, Ordering::SeqCst);
    }

    pub(super) fn compaction_ended(&self) {
        self.compactions.fetch_sub(1, Ordering::SeqCst);
    }

    /// pi's `getContextUsage`: estimated context tokens, the model's window
    /// and the percentage; tokens unknown after a compaction until an answer
    /// reports usage; `None` without a context window.
    pub fn context_usage(&self) -> Option<ContextUsage> {
        let window = self.agent.model().context_window;
        if window == 0 {
            return None;
        }
        let unknown_since_compaction = {
            let session = self.session();
            let branch = session.branch_path(None);
            branch
                .iter()
                .rposition(|e| matches!(e, SessionEntry::Compaction(_)))
                .is_some_and(|at| {
                    let usage = branch[at + 1..].iter().rev().find_map(|e| match e {
                        SessionEntry::Message(m) => m
                            .message
                            .as_assistant()
                            .filter(|a| !a.stop_reason.is_failure())
                            .map(|a| calculate_context_tokens(&a.usage)),
                        _ => None,
                    });
                    usage.is_none_or(|tokens| tokens == 0)
                })
        };
        if unknown_since_compaction {
            return Some(ContextUsage {
                tokens: None,
                context_window: window,
                percent: None,
            });
        }
        let tokens = self
            .agent
            .with_state(|s| estimate_context_tokens(&s.messages).tokens);
        let percent = tokens as f64 / window as f64 * 100.0;
        Some(ContextUsage {
            tokens: Some(tokens),
            context_window: window,
            percent: Some(percent),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(id: &str, reasoning: bool, extra: Value) -> Model {
        serde_json::from_value(json!({
            "id": id, "name": id, "api": "openai-completions", "provider": "p",
            "baseUrl": "http://x", "reasoning": reasoning, "contextWindow": 1000, "maxTokens": 100,
        }))
        .map(|mut m: Model| {
            if let Value::Object(map) = extra {
                m.extra.extend(map);
            }
            m
        })
        .unwrap()
    }

    #[test]
    fn levels_are_clamped_to_what_the_model_supports() {
        let plain = model("plain", false, json!({}));
        let think = model("think", true, json!({}));
        let xhigh = model("gpt-5.2", true, json!({}));
        assert_eq!(clamp_level(&plain, Some(ThinkingLevel::High)), None);
        assert_eq!(
            clamp_level(&think, Some(ThinkingLevel::Xhigh)),
            Some(ThinkingLevel::High)
        );
        assert_eq!(
            clamp_level(&xhigh, Some(ThinkingLevel::Xhigh)),
            Some(ThinkingLevel::Xhigh)
        );
        assert_eq!(supported_levels(&plain), [None]);
        assert_eq!(supported_levels(&think).len(), 5, "off to high");
        assert_eq!(supported_levels(&xhigh).len(), 6);
        let mapped = model(
            "mapped",
            true,
            json!({"thinkingLevelMap": {"minimal": null, "xhigh": "max"}}),
        );
        assert_eq!(
            supported_levels(&mapped),
            [
                None,
                Some(ThinkingLevel::Low),
                Some(ThinkingLevel::Medium),
                Some(ThinkingLevel::High),
                Some(ThinkingLevel::Xhigh)
            ]
        );
        assert_eq!(
            clamp_level(&mapped, Some(ThinkingLevel::Minimal)),
            Some(ThinkingLevel::Low),
            "the nearest supported level above"
        );
    }

    #[test]
    fn numbers_are_written_as_javascript_writes_them() {
        assert_eq!(js_number(0.0).to_string(), "0");
        assert_eq!(js_number(12.0).to_string(), "12");
        assert_eq!(js_number(0.40625).to_string(), "0.40625");
    }

    #[test]
    fn context_usage_is_written_as_pi_writes_it() {
        let line = |usage: ContextUsage| serde_json::to_string(&usage).unwrap();
        assert_eq!(
            line(ContextUsage {
                tokens: None,
                context_window: 1000,
                percent: None
            }),
            r#"{"tokens":null,"contextWindow":1000,"percent":null}"#
        );
        assert_eq!(
            line(ContextUsage {
                tokens: Some(250),
                context_window: 1000,
                percent: Some(25.0)
            }),
            r#"{"tokens":250,"contextWindow":1000,"percent":25}"#
        );
        assert_eq!(
            line(ContextUsage {
                tokens: Some(125),
                context_window: 1000,
                percent: Some(12.5)
            }),
            r#"{"tokens":125,"contextWindow":1000,"percent":12.5}"#
        );
    }
}
