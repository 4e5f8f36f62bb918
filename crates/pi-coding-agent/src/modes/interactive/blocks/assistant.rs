//! An assistant message: its text parts as markdown, its thinking parts in
//! italic `thinkingText` (or the label `Thinking...` when hidden), then,
//! when the message has no tool calls, `Operation aborted` or
//! `Error: <message>` in the error colour. Streamed deltas are appended to
//! the part they belong to.

use pi_ai::{AssistantContent, AssistantMessage, StopReason};
use pi_tui::theme::Token;

use super::RenderCtx;
use crate::modes::interactive::layout::padded;
use crate::modes::interactive::md::{Md, MdStyle};

/// The label shown for hidden thinking.
pub const HIDDEN_THINKING_LABEL: &str = "Thinking...";

struct Part {
    index: usize,
    thinking: bool,
    md: Md,
}

/// An assistant message, streaming or settled.
#[derive(Default)]
pub struct AssistantBlock {
    parts: Vec<Part>,
    has_tool_calls: bool,
    /// The failure line (`Operation aborted`, `Error: ...`), once settled.
    failure: Option<String>,
    finished: bool,
    /// The label of hidden thinking set by an extension (`None`: pi's).
    hidden_label: Option<String>,
    /// Leading lines of the last render that streaming cannot change.
    stable: usize,
}

impl AssistantBlock {
    /// An empty message whose stream just started.
    pub fn streaming() -> Self {
        Self::default()
    }

    /// A settled message (history, or the end of a stream).
    pub fn settled(message: &AssistantMessage) -> Self {
        let mut block = Self::default();
        block.finish(message, None);
        block
    }

    /// Shows hidden thinking as `label` (`None`: [`HIDDEN_THINKING_LABEL`]).
    pub fn set_hidden_label(&mut self, label: Option<String>) {
        self.hidden_label = label;
    }

    /// True once the message is settled.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    fn part(&mut self, index: usize, thinking: bool) -> &mut Md {
        let at = match self.parts.iter().position(|p| p.index == index) {
            Some(at) => at,
            None => {
                let style = if thinking {
                    MdStyle::Thinking
                } else {
                    MdStyle::Plain
                };
                self.parts.push(Part {
                    index,
                    thinking,
                    md: Md::new("", style),
                });
                self.parts.sort_by_key(|p| p.index);
                self.parts
                    .iter()
                    .position(|p| p.index == index)
                    .unwrap_or(0)
            }
        };
        &mut self.parts[at].md
    }

    /// Appends streamed text (or thinking) of content block `index`.
    pub fn push(&mut self, index: usize, thinking: bool, delta: &str) {
        self.part(index, thinking).push_str(delta);
    }

    /// Settles a message whose stream ended without its final message (the run ended):
    /// what was streamed stays as it is.
    pub fn settle_as_is(&mut self) {
        self.finished = true;
    }

    /// How many leading lines of the last render cannot change any more: the parts before
    /// the last one shown and the settled start of that one.
    pub fn stable_lines(&self) -> usize {
        self.stable
    }

    /// Marks that the message calls tools (the failure line then goes to the cards).
    pub fn set_has_tool_calls(&mut self) {
        self.has_tool_calls = true;
    }

    /// Settles the message: its final content and, for a failed message
    /// without tool calls, the failure line (`aborted_text` overrides the
    /// aborted message, as pi's `Operation aborted`).
    pub fn finish(&mut self, message: &AssistantMessage, aborted_text: Option<&str>) {
        for (index, block) in message.content.iter().enumerate() {
            match block {
                AssistantContent::Text(t) => self.part(index, false).set_text(&t.text),
                AssistantContent::Thinking(t) => self.part(index, true).set_text(&t.thinking),
                AssistantContent::ToolCall(_) => self.has_tool_calls = true,
            }
        }
        self.failure = match message.stop_reason {
            _ if self.has_tool_calls => None,
            StopReason::Aborted => Some(
                aborted_text
                    .map(str::to_owned)
                    .or_else(|| {
                        message
                            .error_message
                            .clone()
                            .filter(|m| m != "Request was aborted")
                    })
                    .unwrap_or_else(|| "Operation aborted".to_owned()),
            ),
            StopReason::Error => Some(format!(
                "Error: {}",
                message.error_message.as_deref().unwrap_or("Unknown error")
            )),
            _ => None,
        };
        self.finished = true;
    }

    /// The lines for `width`.
    pub fn render(&mut self, ctx: &RenderCtx<'_>, width: usize) -> Vec<String> {
        let theme = ctx.theme;
        let visible: Vec<bool> = self.parts.iter().map(|p| !p.md.is_blank()).collect();
        let mut lines = Vec::new();
        if visible.iter().any(|v| *v) {
            lines.push(String::new());
        }
        let mut stable = lines.len();
        for (i, part) in self.parts.iter_mut().enumerate() {
            if !visible[i] {
                continue;
            }
            let start = lines.len();
            let last = !visible[i + 1..].iter().any(|v| *v);
            if part.thinking {
                if ctx.hide_thinking {
                    let text = self
                        .hidden_label
                        .as_deref()
                        .unwrap_or(HIDDEN_THINKING_LABEL);
                    let label = theme.italic(&theme.fg(Token::ThinkingText, text));
                    lines.extend(padded(&label, width, 1));
                } else {
                    lines.extend(part.md.render(theme, width, 1, &ctx.code_indent));
                }
                if visible[i + 1..].iter().any(|v| *v) {
                    lines.push(String::new());
                }
            } else {
                lines.extend(part.md.render(theme, width, 1, &ctx.code_indent));
            }
            stable = if !last {
                lines.len()
            } else if part.thinking && ctx.hide_thinking {
                start
            } else {
                start + part.md.stable_lines()
            };
        }
        if let Some(failure) = &self.failure {
            lines.push(String::new());
            lines.extend(padded(&theme.fg(Token::Error, failure), width, 1));
        }
        self.stable = if self.finished { lines.len() } else { stable };
        lines
    }
}
