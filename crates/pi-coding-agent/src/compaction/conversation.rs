//! The transcript as the summarizer reads it (pi's `serializeConversation`
//! of `convertToLlm`'s messages), written message by message from borrowed
//! messages straight into the text of the summary request.
//!
//! Each message gives up to three parts, `[User]: `, `[Assistant thinking]: `,
//! `[Assistant]: `, `[Assistant tool calls]: name(k=json, ...); ...` and
//! `[Tool result]: ` (cut at [`TOOL_RESULT_MAX_CHARS`]), joined by blank
//! lines; a part with no text is left out.

use std::borrow::Cow;
use std::fmt::Write as _;

use pi_agent_core::AgentMessage;
use pi_ai::{AssistantContent, Message, UserBlock, UserContent};
use serde_json::Value;

use super::summarize::{TOOL_RESULT_MAX_CHARS, js_len};
use crate::messages::{
    BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX, COMPACTION_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_SUFFIX, CodingAgentMessage, CodingMessage, bash_execution_to_text,
};

/// Opening of the conversation in a summary request.
const OPEN: &str = "<conversation>\n";
/// Closing of the conversation in a summary request.
const CLOSE: &str = "\n</conversation>\n\n";
/// Room kept for the request's closing, instructions and focus.
const REQUEST_ROOM: usize = 4096;

/// Serialized parts joined by blank lines, appended to a string.
#[derive(Debug, Clone, PartialEq)]
struct Parts {
    out: String,
    any: bool,
}

impl Parts {
    /// The string to write the next part to, after a blank line if one
    /// came before.
    fn next(&mut self) -> &mut String {
        if self.any {
            self.out.push_str("\n\n");
        }
        self.any = true;
        &mut self.out
    }

    /// `[User]: ` and the text, when it is not empty.
    fn user(&mut self, text: &str) {
        if !text.is_empty() {
            self.next().push_str("[User]: ");
            self.out.push_str(text);
        }
    }

    /// `[User]: ` and the text blocks, one after the other.
    fn user_blocks(&mut self, blocks: &[UserBlock]) {
        if blocks
            .iter()
            .filter_map(UserBlock::as_text)
            .any(|t| !t.is_empty())
        {
            self.next().push_str("[User]: ");
            blocks
                .iter()
                .filter_map(UserBlock::as_text)
                .for_each(|t| self.out.push_str(t));
        }
    }

    /// `[User]: ` and a summary within its lead-in and closing.
    fn summary(&mut self, prefix: &str, summary: &str, suffix: &str) {
        let out = self.next();
        for text in ["[User]: ", prefix, summary, suffix] {
            out.push_str(text);
        }
    }

    /// One of the messages a model gets.
    fn llm(&mut self, message: &Message) {
        match message {
            Message::User(user) => match &user.content {
                UserContent::Text(text) => self.user(text),
                UserContent::Blocks(blocks) => self.user_blocks(blocks),
            },
            Message::Assistant(assistant) => {
                let content = &assistant.content;
                let thinking = content.iter().filter_map(|b| match b {
                    AssistantContent::Thinking(t) => Some(t.thinking.as_str()),
                    _ => None,
                });
                self.joined("[Assistant thinking]: ", "\n", thinking);
                let texts = content.iter().filter_map(|b| match b {
                    AssistantContent::Text(t) => Some(t.text.as_str()),
                    _ => None,
                });
                self.joined("[Assistant]: ", "\n", texts);
                let mut calls = content
                    .iter()
                    .filter_map(|b| match b {
                        AssistantContent::ToolCall(call) => Some(call),
                        _ => None,
                    })
                    .peekable();
                if calls.peek().is_some() {
                    let out = self.next();
                    out.push_str("[Assistant tool calls]: ");
                    for (i, call) in calls.enumerate() {
                        if i > 0 {
                            out.push_str("; ");
                        }
                        out.push_str(&call.name);
                        out.push('(');
                        if let Value::Object(map) = &call.arguments {
                            for (j, (key, value)) in map.iter().enumerate() {
                                if j > 0 {
                                    out.push_str(", ");
                                }
                                // Writing to a String cannot fail.
                                let _ = write!(out, "{key}={value}");
                            }
                        }
                        out.push(')');
                    }
                }
            }
            Message::ToolResult(result) => {
                let mut texts = result.content.iter().filter_map(UserBlock::as_text);
                let text = match (texts.next(), texts.next()) {
                    (None, _) => return,
                    (Some(only), None) => Cow::Borrowed(only),
                    (Some(first), Some(second)) => {
                        Cow::Owned([first, second].into_iter().chain(texts).collect())
                    }
                };
                if !text.is_empty() {
                    self.next().push_str("[Tool result]: ");
                    push_truncated(&mut self.out, &text, TOOL_RESULT_MAX_CHARS);
                }
            }
        }
    }

    /// `label` and the texts joined by `separator`, when there is any.
    fn joined<'t>(&mut self, label: &str, separator: &str, texts: impl Iterator<Item = &'t str>) {
        let mut texts = texts.peekable();
        if texts.peek().is_none() {
            return;
        }
        let out = self.next();
        out.push_str(label);
        for (i, text) in texts.enumerate() {
            if i > 0 {
                out.push_str(separator);
            }
            out.push_str(text);
        }
    }

    /// A transcript message, as `convert_to_llm` gives it to a model.
    fn coding(&mut self, message: &CodingAgentMessage) {
        match message {
            AgentMessage::Standard(standard) => self.llm(standard),
            AgentMessage::Custom(CodingMessage::BashExecution(bash)) => {
                if bash.exclude_from_context != Some(true) {
                    self.user(&bash_execution_to_text(bash));
                }
            }
            AgentMessage::Custom(CodingMessage::Custom(custom)) => match &custom.content {
                UserContent::Text(text) => self.user(text),
                UserContent::Blocks(blocks) => self.user_blocks(blocks),
            },
            AgentMessage::Custom(CodingMessage::BranchSummary(s)) => {
                self.summary(BRANCH_SUMMARY_PREFIX, &s.summary, BRANCH_SUMMARY_SUFFIX);
            }
            AgentMessage::Custom(CodingMessage::CompactionSummary(s)) => self.summary(
                COMPACTION_SUMMARY_PREFIX,
                &s.summary,
                COMPACTION_SUMMARY_SUFFIX,
            ),
        }
    }
}

/// Appends `text` cut to `max` UTF-16 units, with a note of how many more
/// there were.
fn push_truncated(out: &mut String, text: &str, max: usize) {
    let total = js_len(text);
    if total <= max {
        out.push_str(text);
        return;
    }
    let mut units = 0;
    let mut end = 0;
    for (i, c) in text.char_indices() {
        if units + c.len_utf16() > max {
            break;
        }
        units += c.len_utf16();
        end = i + c.len_utf8();
    }
    out.push_str(&text[..end]);
    let _ = write!(out, "\n\n[... {} more characters truncated]", total - units);
}

/// pi's `serializeConversation`: the messages as plain text, so the
/// summarizer reads them instead of continuing them.
pub fn serialize_conversation(messages: &[Message]) -> String {
    let mut parts = Parts {
        out: String::new(),
        any: false,
    };
    messages.iter().for_each(|m| parts.llm(m));
    parts.out
}

/// The messages to summarize, serialized into the text of their summary
/// request (`<conversation>\n…`); the request is finished by
/// [`Conversation::into_request`], in place.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversation {
    parts: Parts,
    /// How many messages were added (a message may give no text).
    messages: usize,
}

impl Default for Conversation {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl Conversation {
    /// An empty conversation with room for `capacity` bytes of serialized
    /// messages (and the rest of the request).
    pub fn with_capacity(capacity: usize) -> Self {
        let mut out = String::with_capacity(OPEN.len() + capacity + REQUEST_ROOM);
        out.push_str(OPEN);
        Self {
            parts: Parts { out, any: false },
            messages: 0,
        }
    }

    /// The conversation of `messages`.
    pub fn of(messages: &[CodingAgentMessage]) -> Self {
        let mut conversation = Self::default();
        messages.iter().for_each(|m| conversation.push(m));
        conversation
    }

    /// Adds a message of the transcript (as the model would get it).
    pub fn push(&mut self, message: &CodingAgentMessage) {
        self.messages += 1;
        self.parts.coding(message);
    }

    /// How many messages were added.
    pub fn len(&self) -> usize {
        self.messages
    }

    /// True when no message was added.
    pub fn is_empty(&self) -> bool {
        self.messages == 0
    }

    /// The serialized messages (pi's `serializeConversation`).
    pub fn text(&self) -> &str {
        &self.parts.out[OPEN.len()..]
    }

    /// The user text of the summary request:
    /// `<conversation>\n…\n</conversation>\n\n`, the previous summary in
    /// `<previous-summary>` tags if any, the instructions, then
    /// `\n\nAdditional focus: …`. The serialized text is not copied.
    pub fn into_request(
        self,
        previous_summary: Option<&str>,
        instructions: &str,
        custom_instructions: Option<&str>,
    ) -> String {
        const PREVIOUS_OPEN: &str = "<previous-summary>\n";
        const PREVIOUS_CLOSE: &str = "\n</previous-summary>\n\n";
        const FOCUS: &str = "\n\nAdditional focus: ";
        let mut text = self.parts.out;
        let previous_len =
            previous_summary.map_or(0, |p| PREVIOUS_OPEN.len() + p.len() + PREVIOUS_CLOSE.len());
        let focus_len = custom_instructions.map_or(0, |f| FOCUS.len() + f.len());
        text.reserve_exact(CLOSE.len() + previous_len + instructions.len() + focus_len);
        text.push_str(CLOSE);
        if let Some(previous) = previous_summary {
            for part in [PREVIOUS_OPEN, previous, PREVIOUS_CLOSE] {
                text.push_str(part);
            }
        }
        text.push_str(instructions);
        if let Some(focus) = custom_instructions {
            text.push_str(FOCUS);
            text.push_str(focus);
        }
        text
    }
}
