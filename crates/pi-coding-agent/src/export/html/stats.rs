//! The statistics the page's header shows: entries and messages of each kind, tool
//! calls, tokens and cost summed over the assistant messages, the models used, and the
//! times of the first and last entries.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use pi_agent_core::AgentMessage;
use pi_ai::{AssistantContent, Message};

use super::escape::escape;
use crate::session::SessionEntry;

/// Counts over a session's entries (all branches).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Stats {
    /// Entries of any kind.
    pub entries: usize,
    /// User messages.
    pub user: usize,
    /// Assistant messages.
    pub assistant: usize,
    /// Tool calls.
    pub tool_calls: usize,
    /// Tool results that failed.
    pub tool_errors: usize,
    /// Input, output, cache-read and cache-write tokens.
    pub tokens: [u64; 4],
    /// Total cost in dollars.
    pub cost: f64,
    /// `provider/model` of each model that answered.
    pub models: BTreeSet<String>,
    /// Time of the first entry.
    pub first: String,
    /// Time of the last entry.
    pub last: String,
}

impl Stats {
    /// Counts `entry`.
    pub fn entry(&mut self, entry: &SessionEntry) {
        self.entries += 1;
        let time = entry.timestamp();
        if !time.is_empty() {
            if self.first.is_empty() {
                self.first = time.to_owned();
            }
            time.clone_into(&mut self.last);
        }
        match entry.as_message() {
            Some(AgentMessage::Standard(Message::User(_))) => self.user += 1,
            Some(AgentMessage::Standard(Message::Assistant(a))) => {
                self.assistant += 1;
                self.tool_calls += a
                    .content
                    .iter()
                    .filter(|c| matches!(c, AssistantContent::ToolCall(_)))
                    .count();
                let u = &a.usage;
                for (sum, n) in
                    self.tokens
                        .iter_mut()
                        .zip([u.input, u.output, u.cache_read, u.cache_write])
                {
                    *sum += n;
                }
                self.cost += u.cost.total;
                if self.models.len() < 32 {
                    self.models
                        .insert(format!("{}/{}", a.provider.as_str(), a.model));
                }
            }
            Some(AgentMessage::Standard(Message::ToolResult(r))) if r.is_error => {
                self.tool_errors += 1;
            }
            _ => {}
        }
    }

    /// The statistics as a definition list.
    pub fn html(&self) -> String {
        let mut out = String::from("<dl class=\"stats\">");
        let mut row = |name: &str, value: &str| {
            let _ = write!(out, "<dt>{}</dt><dd>{}</dd>", escape(name), escape(value));
        };
        row("Entries", &self.entries.to_string());
        row(
            "Messages",
            &format!("{} user, {} assistant", self.user, self.assistant),
        );
        row(
            "Tool calls",
            &format!("{} ({} failed)", self.tool_calls, self.tool_errors),
        );
        let [input, output, read, write] = self.tokens;
        row(
            "Tokens",
            &format!("↑{input} ↓{output} cache R{read} W{write}"),
        );
        if self.cost > 0.0 {
            row("Cost", &format!("${:.4}", self.cost));
        }
        if !self.models.is_empty() {
            let models: Vec<&str> = self.models.iter().map(String::as_str).collect();
            row("Models", &models.join(", "));
        }
        if !self.first.is_empty() {
            row("First entry", &self.first);
            row("Last entry", &self.last);
        }
        out.push_str("</dl>");
        out
    }
}
