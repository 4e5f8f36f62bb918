//! `convert_to_llm`: the coding agent's transcript projected onto the three
//! roles a model understands.

use std::sync::Arc;

use async_trait::async_trait;
use pi_agent_core::{AgentMessage, ConvertToLlm, HookError};
use pi_ai::{Message, TransformedMessage, UserBlock, UserContent, UserMessage};

use super::{BashExecutionMessage, CodingMessage};

/// Lead-in of a compaction summary as the model sees it (pi's exact bytes).
pub const COMPACTION_SUMMARY_PREFIX: &str = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";

/// Closing of a compaction summary (starts with a newline, unlike the branch one).
pub const COMPACTION_SUMMARY_SUFFIX: &str = "\n</summary>";

/// Lead-in of a branch summary as the model sees it (pi's exact bytes).
pub const BRANCH_SUMMARY_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";

/// Closing of a branch summary (no leading newline).
pub const BRANCH_SUMMARY_SUFFIX: &str = "</summary>";

/// The agent's converter: [`convert_to_llm`], then with `block_images`
/// [`super::block_images`]. Both go message by message and borrow every
/// message they leave as it is, so the agent calls the model with its
/// transcript where it is, never copied for a call.
pub fn llm_converter(block_images: bool) -> Arc<dyn ConvertToLlm<CodingMessage>> {
    Arc::new(CodingConverter { block_images })
}

/// See [`llm_converter`].
struct CodingConverter {
    block_images: bool,
}

impl CodingConverter {
    fn borrowed<'a>(
        &self,
        messages: &'a [AgentMessage<CodingMessage>],
    ) -> Vec<TransformedMessage<'a>> {
        let mut converted = Vec::with_capacity(messages.len());
        let each = messages.iter().filter_map(convert_message);
        if self.block_images {
            converted.extend(each.map(super::block_images::block_message_images));
        } else {
            converted.extend(each);
        }
        converted
    }
}

#[async_trait]
impl ConvertToLlm<CodingMessage> for CodingConverter {
    async fn convert(
        &self,
        messages: &[AgentMessage<CodingMessage>],
    ) -> Result<Vec<Message>, HookError> {
        let borrowed = self.borrowed(messages);
        let mut converted = Vec::with_capacity(borrowed.len());
        converted.extend(borrowed.into_iter().map(TransformedMessage::into_owned));
        Ok(converted)
    }

    fn per_message(&self) -> bool {
        true
    }

    fn convert_borrowed<'a>(
        &self,
        messages: &'a [AgentMessage<CodingMessage>],
    ) -> Option<Result<Vec<TransformedMessage<'a>>, HookError>> {
        Some(Ok(self.borrowed(messages)))
    }
}

/// The text the model gets for a `!cmd` run: the command, its output in a
/// fenced block (or `(no output)`), then a cancellation or non-zero exit
/// note, then where the full output is when it was truncated.
pub fn bash_execution_to_text(msg: &BashExecutionMessage) -> String {
    let mut text = format!("Ran `{}`\n", msg.command);
    if msg.output.is_empty() {
        text.push_str("(no output)");
    } else {
        text.push_str("```\n");
        text.push_str(&msg.output);
        text.push_str("\n```");
    }
    if msg.cancelled {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = msg.exit_code.filter(|code| *code != 0) {
        text.push_str(&format!("\n\nCommand exited with code {code}"));
    }
    if msg.truncated
        && let Some(path) = &msg.full_output_path
    {
        text.push_str(&format!("\n\n[Output truncated. Full output: {path}]"));
    }
    text
}

fn user_text(text: String, timestamp: i64) -> Message {
    Message::User(UserMessage {
        content: UserContent::Blocks(vec![UserBlock::text(text)]),
        timestamp,
        ..UserMessage::default()
    })
}

/// Turns the transcript into the messages sent to the model. Standard
/// messages pass through unchanged; `bashExecution` becomes user text (or is
/// dropped when `excludeFromContext`); `custom` becomes a user message with
/// its content (a string becomes one text block); the two summaries become
/// user text wrapped in pi's `<summary>` lead-ins. The input is not modified.
pub fn convert_to_llm(messages: &[AgentMessage<CodingMessage>]) -> Vec<Message> {
    // Sized up front: collecting a filter grows by doubling, which leaves
    // up to half of a long transcript's list unused.
    let mut converted = Vec::with_capacity(messages.len());
    converted.extend(
        messages
            .iter()
            .filter_map(convert_message)
            .map(TransformedMessage::into_owned),
    );
    converted
}

/// What one message of the transcript becomes: itself (borrowed) for the
/// three model roles, a user message for the app's roles, or nothing.
///
/// The match is exhaustive: a new role in [`CodingMessage`] does not compile
/// until it is handled here.
fn convert_message(message: &AgentMessage<CodingMessage>) -> Option<TransformedMessage<'_>> {
    let user =
        |text: String, timestamp: i64| Some(TransformedMessage::owned(user_text(text, timestamp)));
    match message {
        AgentMessage::Standard(standard) => Some(TransformedMessage::Borrowed(standard)),
        AgentMessage::Custom(CodingMessage::BashExecution(bash)) => {
            if bash.exclude_from_context == Some(true) {
                None
            } else {
                user(bash_execution_to_text(bash), bash.timestamp)
            }
        }
        AgentMessage::Custom(CodingMessage::Custom(custom)) => {
            let content = match &custom.content {
                UserContent::Text(text) => vec![UserBlock::text(text.clone())],
                UserContent::Blocks(blocks) => blocks.clone(),
            };
            Some(TransformedMessage::owned(Message::User(UserMessage {
                content: UserContent::Blocks(content),
                timestamp: custom.timestamp,
                ..UserMessage::default()
            })))
        }
        AgentMessage::Custom(CodingMessage::BranchSummary(summary)) => user(
            format!(
                "{BRANCH_SUMMARY_PREFIX}{}{BRANCH_SUMMARY_SUFFIX}",
                summary.summary
            ),
            summary.timestamp,
        ),
        AgentMessage::Custom(CodingMessage::CompactionSummary(summary)) => user(
            format!(
                "{COMPACTION_SUMMARY_PREFIX}{}{COMPACTION_SUMMARY_SUFFIX}",
                summary.summary
            ),
            summary.timestamp,
        ),
    }
}
