//! The queue part (pi's `pendingMessagesContainer`): messages queued while
//! the agent streams (`Steering:` / `Follow-up:` and the Alt+Up hint),
//! prompts deferred while the app compacts or retries, and the `!cmd`
//! blocks run while streaming (moved into the chat when the run ends).

use pi_tui::text::truncate_to_width;
use pi_tui::theme::Token;

use crate::modes::interactive::blocks::{Block, RenderCtx};

/// Which queue a message waits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueKind {
    /// Delivered after the current tool calls (Enter while streaming).
    Steer,
    /// Delivered when the agent would stop (Alt+Enter while streaming).
    FollowUp,
}

/// The pending area under the chat.
#[derive(Default)]
pub struct Queue {
    /// Messages queued while streaming, oldest first.
    messages: Vec<(QueueKind, String)>,
    /// Prompts typed while the app compacts or retries (sent when it is done).
    deferred: Vec<String>,
    /// `!cmd` blocks run while streaming.
    bash: Vec<Block>,
}

impl Queue {
    /// Shows a message queued in the agent.
    pub fn push(&mut self, kind: QueueKind, text: String) {
        self.messages.push((kind, text));
    }

    /// Keeps a prompt for when the app is done (shown as a follow-up).
    pub fn defer(&mut self, text: String) {
        self.messages.push((QueueKind::FollowUp, text.clone()));
        self.deferred.push(text);
    }

    /// The oldest deferred prompt, no longer shown.
    pub fn next_deferred(&mut self) -> Option<String> {
        if self.deferred.is_empty() {
            return None;
        }
        let text = self.deferred.remove(0);
        self.messages.retain(|(_, t)| *t != text);
        Some(text)
    }

    /// A queued message reached the chat: it is no longer shown.
    pub fn started(&mut self, text: &str) {
        if let Some(at) = self.messages.iter().position(|(_, t)| t == text) {
            self.messages.remove(at);
        }
    }

    /// Every queued and deferred text, oldest first; the queue is emptied.
    pub fn take_texts(&mut self) -> Vec<String> {
        let mut texts: Vec<String> = self.messages.drain(..).map(|(_, t)| t).collect();
        texts.append(&mut self.deferred);
        texts
    }

    /// Adds a `!cmd` block run while streaming; returns its index.
    pub fn add_bash(&mut self, block: Block) -> usize {
        self.bash.push(block);
        self.bash.len() - 1
    }

    /// The `!cmd` block at `index`.
    pub fn bash_mut(&mut self, index: usize) -> Option<&mut Block> {
        self.bash.get_mut(index)
    }

    /// The `!cmd` blocks, taken out (to move them into the chat).
    pub fn take_bash(&mut self) -> Vec<Block> {
        std::mem::take(&mut self.bash)
    }

    /// True while a `!cmd` block animates.
    pub fn is_animating(&self) -> bool {
        self.bash.iter().any(Block::is_animating)
    }

    /// Drops cached renders (a theme change).
    pub fn invalidate(&mut self) {
        for block in &mut self.bash {
            block.invalidate();
        }
    }

    /// The queued messages and the `!cmd` blocks.
    pub fn render(&mut self, ctx: &RenderCtx<'_>, width: usize, lines: &mut Vec<String>) {
        if !self.messages.is_empty() {
            lines.push(String::new());
            for (kind, text) in &self.messages {
                let label = match kind {
                    QueueKind::Steer => "Steering",
                    QueueKind::FollowUp => "Follow-up",
                };
                let line = ctx
                    .theme
                    .fg(Token::Dim, &format!("{label}: {}", one_line(text)));
                lines.push(truncate_to_width(&format!(" {line}"), width, ""));
            }
            let hint = ctx
                .theme
                .fg(Token::Dim, "↳ Alt+Up to edit all queued messages");
            lines.push(truncate_to_width(&format!(" {hint}"), width, ""));
        }
        for block in &mut self.bash {
            lines.extend_from_slice(block.render(ctx, width));
        }
    }
}

/// A queued message on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
