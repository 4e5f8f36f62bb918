//! Compaction: when the context grows too large, the older part of the
//! active path is replaced by a model-written summary, persisted as a
//! `compaction` entry that [`crate::context::build_session_context`] applies.
//!
//! The pieces follow pi: a token estimate (characters / 4, plus the usage
//! the last assistant message reported), a threshold
//! (`contextWindow - reserveTokens`), a cut point that keeps about
//! `keepRecentTokens` of recent messages and never separates a tool result
//! from its call, a summary (folding in the previous one), and the list of
//! files read and modified.

mod branch;
mod conversation;
mod prepare;
mod summarize;

use pi_agent_core::AgentMessage;
use pi_ai::{Message, ThinkingLevel, Usage, UserBlock, UserContent};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use branch::{
    BranchPreparation, BranchSummaryOptions, BranchSummaryResult,
    collect_entries_for_branch_summary, generate_branch_summary, prepare_branch_entries,
    summarize_and_branch,
};
pub use conversation::{Conversation, serialize_conversation};
pub(crate) use prepare::ends_with_compaction;
use prepare::entry_message;
pub use prepare::{
    CompactionPreparation, CutPoint, find_cut_point, find_turn_start_index, messages_json,
    prepare_branch_compaction, prepare_compaction,
};
pub use summarize::{
    BRANCH_SUMMARY_PREAMBLE, BRANCH_SUMMARY_PROMPT, FileOperations, SUMMARIZATION_SYSTEM_PROMPT,
    SUMMARY_PROMPT, Summarizer, TOOL_RESULT_MAX_CHARS, TURN_PREFIX_PROMPT, UPDATE_SUMMARY_PROMPT,
    format_file_operations, js_len, summary_request_text,
};

use crate::messages::{CodingAgentMessage, CodingMessage};
use crate::session::{SessionError, SessionManager};

/// Errors of compaction and branch summarization.
#[derive(Debug, thiserror::Error)]
pub enum CompactionError {
    /// The model call failed.
    #[error("Summarization failed: {0}")]
    Summarization(String),
    /// The model call was cancelled.
    #[error("Summarization was aborted")]
    Aborted,
    /// An extension cancelled it (`session_before_compact`).
    #[error("Compaction cancelled")]
    Cancelled,
    /// The active path already ends with a compaction.
    #[error("Already compacted")]
    AlreadyCompacted,
    /// There is nothing before the cut point.
    #[error("Nothing to compact (session too small)")]
    NothingToCompact,
    /// Persisting the result failed.
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// `compaction` settings of `settings.json`, with pi's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CompactionSettings {
    /// Compact automatically when the threshold is crossed (default true).
    pub enabled: bool,
    /// Tokens kept free for the answer (default 16384).
    pub reserve_tokens: u64,
    /// Tokens of recent messages kept verbatim (default 20000).
    pub keep_recent_tokens: u64,
}

impl Default for CompactionSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            reserve_tokens: 16_384,
            keep_recent_tokens: 20_000,
        }
    }
}

fn ceil_quarter(chars: usize) -> u64 {
    u64::try_from(chars.div_ceil(4)).unwrap_or(u64::MAX)
}

fn blocks_chars(blocks: &[UserBlock]) -> usize {
    blocks
        .iter()
        .map(|b| match b {
            UserBlock::Text(t) => js_len(&t.text),
            UserBlock::Image(_) => 4800,
        })
        .sum()
}

/// pi's estimate of a message's tokens: characters (UTF-16 units) / 4,
/// rounded up; an image counts as 4800 characters (not in user messages,
/// as in pi); a tool call counts its name and JSON arguments.
pub fn estimate_tokens(message: &CodingAgentMessage) -> u64 {
    let chars = match message {
        AgentMessage::Standard(Message::User(user)) => match &user.content {
            UserContent::Text(text) => js_len(text),
            UserContent::Blocks(blocks) => blocks
                .iter()
                .filter_map(UserBlock::as_text)
                .map(js_len)
                .sum(),
        },
        AgentMessage::Standard(Message::Assistant(assistant)) => assistant
            .content
            .iter()
            .map(|block| match block {
                pi_ai::AssistantContent::Text(t) => js_len(&t.text),
                pi_ai::AssistantContent::Thinking(t) => js_len(&t.thinking),
                pi_ai::AssistantContent::ToolCall(call) => {
                    js_len(&call.name) + js_len(&call.arguments.to_string())
                }
            })
            .sum(),
        AgentMessage::Standard(Message::ToolResult(result)) => blocks_chars(&result.content),
        AgentMessage::Custom(CodingMessage::Custom(custom)) => match &custom.content {
            UserContent::Text(text) => js_len(text),
            UserContent::Blocks(blocks) => blocks_chars(blocks),
        },
        AgentMessage::Custom(CodingMessage::BashExecution(bash)) => {
            js_len(&bash.command) + js_len(&bash.output)
        }
        AgentMessage::Custom(CodingMessage::BranchSummary(s)) => js_len(&s.summary),
        AgentMessage::Custom(CodingMessage::CompactionSummary(s)) => js_len(&s.summary),
    };
    ceil_quarter(chars)
}

/// Context tokens reported by a usage: `totalTokens`, or the sum of its parts when 0.
pub fn calculate_context_tokens(usage: &Usage) -> u64 {
    if usage.total_tokens > 0 {
        usage.total_tokens
    } else {
        usage.input + usage.output + usage.cache_read + usage.cache_write
    }
}

fn assistant_usage(message: &CodingAgentMessage) -> Option<&Usage> {
    message
        .as_assistant()
        .filter(|a| !a.stop_reason.is_failure())
        .map(|a| &a.usage)
}

/// How many tokens a transcript takes, per pi's estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextUsageEstimate {
    /// `usage_tokens + trailing_tokens`.
    pub tokens: u64,
    /// What the last successful assistant message reported.
    pub usage_tokens: u64,
    /// Estimate of the messages after it.
    pub trailing_tokens: u64,
    /// Position of that assistant message.
    pub last_usage_index: Option<usize>,
}

/// The last successful assistant usage plus chars/4 estimates of every later
/// message; without any usage, estimates of all messages.
pub fn estimate_context_tokens(messages: &[CodingAgentMessage]) -> ContextUsageEstimate {
    let last = messages
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, m)| assistant_usage(m).map(|u| (i, u)));
    match last {
        Some((index, usage)) => {
            let usage_tokens = calculate_context_tokens(usage);
            let trailing_tokens = messages[index + 1..].iter().map(estimate_tokens).sum();
            ContextUsageEstimate {
                tokens: usage_tokens + trailing_tokens,
                usage_tokens,
                trailing_tokens,
                last_usage_index: Some(index),
            }
        }
        None => {
            let tokens = messages.iter().map(estimate_tokens).sum();
            ContextUsageEstimate {
                tokens,
                usage_tokens: 0,
                trailing_tokens: tokens,
                last_usage_index: None,
            }
        }
    }
}

/// True when auto-compaction should run: enabled and
/// `context_tokens > context_window - reserve_tokens`.
pub fn should_compact(
    context_tokens: u64,
    context_window: u64,
    settings: &CompactionSettings,
) -> bool {
    settings.enabled && context_tokens > context_window.saturating_sub(settings.reserve_tokens)
}

/// What a compaction produced (the `compaction` entry's fields; as JSON,
/// the `result` of pi's `compaction_end` and of rpc `compact`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionResult {
    /// The summary, file lists included.
    pub summary: String,
    /// First entry kept.
    pub first_kept_entry_id: String,
    /// Estimated context tokens before.
    pub tokens_before: u64,
    /// `{readFiles, modifiedFiles}`; `null` (left out, pi's `undefined`)
    /// when an extension made the compaction without details.
    #[serde(skip_serializing_if = "Value::is_null")]
    pub details: Value,
}

fn reasoning_for(summarizer: &Summarizer<'_>) -> Option<ThinkingLevel> {
    summarizer.model.reasoning.then_some(ThinkingLevel::High)
}

/// Writes the summary for a prepared compaction: one call for the history
/// (with the previous summary folded in), plus one for the prefix of a
/// split turn, joined under a `**Turn Context (split turn):**` heading;
/// then the file lists. Output budget `floor(0.8 * reserveTokens)`
/// (`0.5` for the turn prefix); reasoning `high` on reasoning models.
pub async fn compact(
    preparation: CompactionPreparation,
    summarizer: &Summarizer<'_>,
    custom_instructions: Option<&str>,
) -> Result<CompactionResult, CompactionError> {
    let CompactionPreparation {
        first_kept_entry_id,
        messages_to_summarize: history,
        turn_prefix_messages: turn_prefix,
        is_split_turn,
        tokens_before,
        previous_summary,
        file_ops,
        settings,
        ..
    } = preparation;
    let reserve = settings.reserve_tokens;
    let instructions = if previous_summary.is_some() {
        UPDATE_SUMMARY_PROMPT
    } else {
        SUMMARY_PROMPT
    };
    let history_prompt = |history: Conversation| {
        history.into_request(
            previous_summary.as_deref(),
            instructions,
            custom_instructions,
        )
    };
    let history_budget = reserve * 4 / 5;
    let mut summary = if is_split_turn && !turn_prefix.is_empty() {
        let history = if history.is_empty() {
            "No prior history.".to_owned()
        } else {
            summarizer
                .summarize(
                    history_prompt(history),
                    history_budget,
                    reasoning_for(summarizer),
                )
                .await?
        };
        let prefix_prompt = turn_prefix.into_request(None, TURN_PREFIX_PROMPT, None);
        let prefix = summarizer
            .summarize(prefix_prompt, reserve / 2, None)
            .await?;
        format!("{history}\n\n---\n\n**Turn Context (split turn):**\n\n{prefix}")
    } else {
        summarizer
            .summarize(
                history_prompt(history),
                history_budget,
                reasoning_for(summarizer),
            )
            .await?
    };
    let (read, modified) = file_ops.file_lists();
    summary.push_str(&format_file_operations(&read, &modified));
    Ok(CompactionResult {
        summary,
        first_kept_entry_id,
        tokens_before,
        details: file_ops.details(),
    })
}

/// Compacts the active path of `session` and appends the `compaction`
/// entry. Returns the result and the new entry's id.
pub async fn compact_session(
    session: &mut SessionManager,
    settings: &CompactionSettings,
    summarizer: &Summarizer<'_>,
    custom_instructions: Option<&str>,
) -> Result<(CompactionResult, String), CompactionError> {
    let preparation = {
        let branch = session.branch_walk();
        if ends_with_compaction(&branch) {
            return Err(CompactionError::AlreadyCompacted);
        }
        prepare_branch_compaction(&branch, settings).ok_or(CompactionError::NothingToCompact)?
    };
    let result = compact(preparation, summarizer, custom_instructions).await?;
    let id = session.append_compaction(
        &result.summary,
        &result.first_kept_entry_id,
        result.tokens_before,
        Some(result.details.clone()),
        None,
    )?;
    Ok((result, id))
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;

#[cfg(test)]
#[path = "conversation_tests.rs"]
mod conversation_tests;

#[cfg(test)]
#[path = "walk_tests.rs"]
mod walk_tests;
