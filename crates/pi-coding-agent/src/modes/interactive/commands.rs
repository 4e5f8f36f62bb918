//! Slash commands that need no dialog: `/compact [instructions]`,
//! `/model [search]` (an exact `provider/id` or id switches, else the selector
//! opens), `/name`, `/session`, `/copy`, `/new`, `/quit` (`/settings`, `/login`,
//! `/logout`, `/export`, `/hotkeys` and `/reload` are in [`super::extras`]; the
//! navigation commands (`/resume`, `/tree`, `/fork`, ...) in `selectors::nav`). Anything else that
//! starts with `/` goes to the model unchanged, as pi does.

use std::sync::Arc;

use pi_agent_core::AgentMessage;
use pi_ai::{AssistantContent, Message};

use super::blocks::Notice;
use super::events::UiEvent;
use super::format::format_thousands;
use super::input::Effect;
use super::ui::Ui;

/// `/name` argument, `None` for `/name` alone.
fn argument<'a>(text: &'a str, name: &str) -> Option<Option<&'a str>> {
    let rest = text.strip_prefix(name)?;
    if rest.is_empty() {
        return Some(None);
    }
    rest.strip_prefix(' ')
        .map(|r| Some(r.trim()).filter(|r| !r.is_empty()))
}

impl Ui {
    /// Runs `text` when it is a command; `None` sends it to the model.
    pub(crate) fn command(&mut self, text: &str) -> Option<Effect> {
        if !text.starts_with('/') {
            return None;
        }
        let done = |ui: &mut Self, effect| {
            ui.editor.set_text("");
            Some(effect)
        };
        if text == "/quit" {
            return done(self, Effect::Quit);
        }
        if text == "/session" {
            self.session_info();
            return done(self, Effect::None);
        }
        if let Some(effect) = self.look_command(text) {
            return Some(effect);
        }
        if text == "/copy" {
            let effect = self.copy();
            return done(self, effect);
        }
        if text == "/new" {
            self.new_session_command();
            return done(self, Effect::None);
        }
        if self.nav_command(text).is_some() {
            return done(self, Effect::None);
        }
        if let Some(name) = argument(text, "/name") {
            self.name(name);
            return done(self, Effect::None);
        }
        if let Some(search) = argument(text, "/model") {
            self.model(search);
            return done(self, Effect::None);
        }
        if let Some(instructions) = argument(text, "/compact") {
            self.compact(instructions);
            return done(self, Effect::None);
        }
        None
    }

    fn name(&mut self, name: Option<&str>) {
        let Some(name) = name else {
            let current = self.app.session().session_name().map(str::to_owned);
            match current {
                Some(current) => self.dim_text(&format!("Session name: {current}")),
                None => self
                    .transcript
                    .notice(Notice::Warning("Usage: /name <name>".to_owned())),
            }
            return;
        };
        let saved = self.app.session().append_session_info(name);
        if let Err(e) = saved {
            self.error(e.to_string());
            return;
        }
        self.refresh_footer();
        self.dim_text(&format!("Session name set: {name}"));
    }

    fn dim_text(&mut self, text: &str) {
        let line = self.theme.fg(pi_tui::theme::Token::Dim, text);
        self.transcript.notice(Notice::Text(line));
    }

    fn model(&mut self, search: Option<&str>) {
        let Some(search) = search else {
            self.open_model_selector(None);
            return;
        };
        let models: Vec<pi_ai::Model> = self
            .app
            .registry()
            .available_models(self.app.cli_api_key.as_deref(), &self.app.auth)
            .into_iter()
            .cloned()
            .collect();
        let exact = models.iter().find(|m| {
            format!("{}/{}", m.provider.as_str(), m.id).eq_ignore_ascii_case(search)
                || m.id.eq_ignore_ascii_case(search)
        });
        match exact {
            Some(model) => {
                let id = model.id.clone();
                self.app.set_model(model.clone());
                self.refresh_footer();
                self.update_border();
                self.status_line(&format!("Model: {id}"));
            }
            None => self.open_model_selector(Some(search)),
        }
    }

    fn compact(&mut self, instructions: Option<&str>) {
        let (messages, _) = self.app.session().message_and_compaction_counts();
        if messages < 2 {
            self.transcript.notice(Notice::Warning(
                "Nothing to compact (no messages yet)".to_owned(),
            ));
            return;
        }
        if self.running {
            self.transcript.notice(Notice::Warning(
                "Wait for the current run to finish before compacting".to_owned(),
            ));
            return;
        }
        self.running = true;
        let app = Arc::clone(&self.app);
        let tx = self.tx.clone();
        let instructions = instructions.map(str::to_owned);
        tokio::spawn(async move {
            // Success and failure are shown from the app's compaction events.
            let _ = app.compact(instructions.as_deref()).await;
            let _ = tx.send(UiEvent::CompactDone);
        });
    }

    fn copy(&mut self) -> Effect {
        let Some(text) = self.app.last_assistant_text().filter(|t| !t.is_empty()) else {
            self.error("No agent messages to copy yet.");
            return Effect::None;
        };
        let copied = super::clipboard::copy_with_tools(&text);
        self.status_line("Copied last agent message to clipboard");
        if copied && !super::clipboard::is_remote() {
            Effect::None
        } else {
            Effect::Copy(text)
        }
    }

    fn session_info(&mut self) {
        let (user, assistant, calls, results, total, tokens, cost) =
            self.app.agent.with_state(|s| {
                let mut counts = (0, 0, 0, 0);
                let mut tokens = [0u64; 4];
                let mut cost = 0.0;
                for m in &s.messages {
                    match m {
                        AgentMessage::Standard(Message::User(_)) => counts.0 += 1,
                        AgentMessage::Standard(Message::Assistant(a)) => {
                            counts.1 += 1;
                            counts.2 += a
                                .content
                                .iter()
                                .filter(|c| matches!(c, AssistantContent::ToolCall(_)))
                                .count();
                            tokens[0] += a.usage.input;
                            tokens[1] += a.usage.output;
                            tokens[2] += a.usage.cache_read;
                            tokens[3] += a.usage.cache_write;
                            cost += a.usage.cost.total;
                        }
                        AgentMessage::Standard(Message::ToolResult(_)) => counts.3 += 1,
                        AgentMessage::Custom(_) => {}
                    }
                }
                (
                    counts.0,
                    counts.1,
                    counts.2,
                    counts.3,
                    s.messages.len(),
                    tokens,
                    cost,
                )
            });
        let (file, id, name) = {
            let session = self.app.session();
            (
                session
                    .session_file()
                    .map_or_else(|| "In-memory".to_owned(), |p| p.display().to_string()),
                session.session_id().to_owned(),
                session.session_name().map(str::to_owned),
            )
        };
        let t = &self.theme;
        let dim = |s: &str| t.fg(pi_tui::theme::Token::Dim, s);
        let mut info = format!("{}\n\n", t.bold("Session Info"));
        if let Some(name) = name {
            info.push_str(&format!("{} {name}\n", dim("Name:")));
        }
        info.push_str(&format!("{} {file}\n{} {id}\n\n", dim("File:"), dim("ID:")));
        info.push_str(&format!("{}\n", t.bold("Messages")));
        for (label, n) in [
            ("User:", user),
            ("Assistant:", assistant),
            ("Tool Calls:", calls),
            ("Tool Results:", results),
            ("Total:", total),
        ] {
            info.push_str(&format!("{} {n}\n", dim(label)));
        }
        info.push_str(&format!("\n{}\n", t.bold("Tokens")));
        info.push_str(&format!(
            "{} {}\n",
            dim("Input:"),
            format_thousands(tokens[0])
        ));
        info.push_str(&format!(
            "{} {}\n",
            dim("Output:"),
            format_thousands(tokens[1])
        ));
        if tokens[2] > 0 {
            info.push_str(&format!(
                "{} {}\n",
                dim("Cache Read:"),
                format_thousands(tokens[2])
            ));
        }
        if tokens[3] > 0 {
            info.push_str(&format!(
                "{} {}\n",
                dim("Cache Write:"),
                format_thousands(tokens[3])
            ));
        }
        let sum: u64 = tokens.iter().sum();
        info.push_str(&format!("{} {}", dim("Total:"), format_thousands(sum)));
        if cost > 0.0 {
            info.push_str(&format!(
                "\n\n{}\n{} {}",
                t.bold("Cost"),
                dim("Total:"),
                super::format::fixed(cost, 4)
            ));
        }
        self.transcript.notice(Notice::Text(info));
    }
}

#[cfg(test)]
mod tests {
    use super::argument;

    #[test]
    fn arguments_need_a_space() {
        assert_eq!(argument("/name", "/name"), Some(None));
        assert_eq!(argument("/name  x y ", "/name"), Some(Some("x y")));
        assert_eq!(argument("/names", "/name"), None);
        assert_eq!(argument("/name ", "/name"), Some(None));
    }
}
