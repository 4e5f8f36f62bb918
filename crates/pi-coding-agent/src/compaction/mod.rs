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
pub use summarize::{
    BRANCH_SUMMARY_PREAMBLE, BRANCH_SUMMARY_PROMPT, FileOperations, SUMMARIZATION_SYSTEM_PROMPT,
    SUMMARY_PROMPT, Summarizer, TOOL_RESULT_MAX_CHARS, TURN_PREFIX_PROMPT, UPDATE_SUMMARY_PROMPT,
    format_file_operations, js_len, serialize_conversation, summary_request_text,
};

use crate::messages::{
    CodingAgentMessage, CodingMessage, create_branch_summary_message,
    create_compaction_summary_message, create_custom_message,
};
use crate::session::{SessionEntry, SessionError, SessionManager};
use summarize::is_cut_role;

/// Errors of compaction and branch summarization.
#[derive(Debug, thiserror::Error)]
pub enum CompactionError {
    /// The model call failed.
    #[error("Summarization failed: {0}")]
    Summarization(String),
    /// The model call was cancelled.
    #[error("Summarization was aborted")]
    Aborted,
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

/// The message an entry contributes to compaction input (unlike the
/// context rebuild, a branch summary counts even when empty).
fn entry_message(entry: &SessionEntry) -> Option<CodingAgentMessage> {
    match entry {
        SessionEntry::Message(e) => Some(e.message.clone()),
        SessionEntry::CustomMessage(e) => Some(create_custom_message(
            &e.custom_type,
            e.content.clone(),
            e.display,
            e.details.clone(),
            &e.timestamp,
        )),
        SessionEntry::BranchSummary(e) => Some(create_branch_summary_message(
            &e.summary,
            &e.from_id,
            &e.timestamp,
        )),
        SessionEntry::Compaction(e) => Some(create_compaction_summary_message(
            &e.summary,
            e.tokens_before,
            &e.timestamp,
        )),
        SessionEntry::ThinkingLevelChange(_)
        | SessionEntry::ModelChange(_)
        | SessionEntry::Custom(_)
        | SessionEntry::Label(_)
        | SessionEntry::SessionInfo(_)
        | SessionEntry::Raw(_) => None,
    }
}

fn is_cut_point(entry: &SessionEntry) -> bool {
    match entry {
        SessionEntry::Message(e) => is_cut_role(&e.message),
        SessionEntry::BranchSummary(_) | SessionEntry::CustomMessage(_) => true,
        SessionEntry::ThinkingLevelChange(_)
        | SessionEntry::ModelChange(_)
        | SessionEntry::Compaction(_)
        | SessionEntry::Custom(_)
        | SessionEntry::Label(_)
        | SessionEntry::SessionInfo(_)
        | SessionEntry::Raw(_) => false,
    }
}

/// The entry (at or before `index`, not before `start`) that starts the
/// turn: a user or bash message, a branch summary or a custom message.
pub fn find_turn_start_index(path: &[&SessionEntry], index: usize, start: usize) -> Option<usize> {
    (start..=index.min(path.len().saturating_sub(1)))
        .rev()
        .find(|&i| match path[i] {
            SessionEntry::BranchSummary(_) | SessionEntry::CustomMessage(_) => true,
            SessionEntry::Message(e) => matches!(
                e.message,
                AgentMessage::Standard(Message::User(_))
                    | AgentMessage::Custom(CodingMessage::BashExecution(_))
            ),
            _ => false,
        })
}

/// Where to cut a path for compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutPoint {
    /// Position of the first entry kept.
    pub first_kept_entry_index: usize,
    /// Start of the turn that is cut in two, when the cut is mid-turn.
    pub turn_start_index: Option<usize>,
}

impl CutPoint {
    /// True when the cut falls inside a turn (not at a user message).
    pub fn is_split_turn(&self) -> bool {
        self.turn_start_index.is_some()
    }
}

/// Finds the cut for `path[start..end]` that keeps about `keep_recent_tokens`:
/// walking back from the newest message and summing estimates, the cut is
/// the first valid cut point at or after the message where the sum reaches
/// the budget. Valid cut points are user, assistant, bash, custom and
/// summary messages and branch-summary / custom-message entries, never a
/// tool result, so a kept tool result always has its call. Non-message
/// entries just before the cut (model or thinking changes, labels) are kept
/// with it.
pub fn find_cut_point(
    path: &[&SessionEntry],
    start: usize,
    end: usize,
    keep_recent_tokens: u64,
) -> CutPoint {
    let cut_points: Vec<usize> = (start..end).filter(|&i| is_cut_point(path[i])).collect();
    let Some(&first) = cut_points.first() else {
        return CutPoint {
            first_kept_entry_index: start,
            turn_start_index: None,
        };
    };
    let mut cut = first;
    let mut accumulated = 0u64;
    for i in (start..end).rev() {
        let SessionEntry::Message(entry) = path[i] else {
            continue;
        };
        accumulated += estimate_tokens(&entry.message);
        if accumulated >= keep_recent_tokens {
            if let Some(&c) = cut_points.iter().find(|&&c| c >= i) {
                cut = c;
            }
            break;
        }
    }
    while cut > start {
        match path[cut - 1] {
            SessionEntry::Compaction(_) | SessionEntry::Message(_) => break,
            _ => cut -= 1,
        }
    }
    // The turn is whole when the first message kept is a user message (pi
    // looks only at the entry at the cut, so a model change kept just before
    // a user message made it a "split turn"; we look past such entries).
    let at_user = path[cut..end]
        .iter()
        .find(|e| matches!(e, SessionEntry::Message(_)))
        .is_some_and(|e| {
            matches!(e, SessionEntry::Message(m) if matches!(m.message, AgentMessage::Standard(Message::User(_))))
        });
    CutPoint {
        first_kept_entry_index: cut,
        turn_start_index: if at_user {
            None
        } else {
            find_turn_start_index(path, cut, start)
        },
    }
}

/// Everything needed to summarize, computed from the active path.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionPreparation {
    /// Id of the first entry kept.
    pub first_kept_entry_id: String,
    /// Messages replaced by the summary.
    pub messages_to_summarize: Vec<CodingAgentMessage>,
    /// The start of a turn cut in two, summarized separately.
    pub turn_prefix_messages: Vec<CodingAgentMessage>,
    /// Whether the cut splits a turn.
    pub is_split_turn: bool,
    /// Estimated context tokens before compaction.
    pub tokens_before: u64,
    /// The summary of the previous compaction on the path, folded into the new one.
    pub previous_summary: Option<String>,
    /// Files read and modified in the summarized part (and earlier compactions).
    pub file_ops: FileOperations,
    /// The settings used.
    pub settings: CompactionSettings,
}

/// pi's `prepareCompaction`: `None` when the path is empty, already ends
/// with a compaction, or its first kept entry cannot be found. After an
/// earlier compaction, the messages it kept (from its first kept entry on)
/// are summarized again along with the newer ones, the earlier summary
/// given as the previous summary.
pub fn prepare_compaction(
    path: &[&SessionEntry],
    settings: &CompactionSettings,
) -> Option<CompactionPreparation> {
    if matches!(path.last(), Some(SessionEntry::Compaction(_)) | None) {
        return None;
    }
    let previous = path
        .iter()
        .rposition(|e| matches!(e, SessionEntry::Compaction(_)));
    let previous_kept = previous.and_then(|p| match path[p] {
        SessionEntry::Compaction(c) => path.iter().position(|e| e.id() == c.first_kept_entry_id),
        _ => None,
    });
    let boundary_start = match previous {
        Some(p) => previous_kept.unwrap_or(p + 1),
        None => 0,
    };
    let end = path.len();
    // The context as the session gives it: the earlier summary, the
    // messages it kept, then the newer ones.
    let context_messages: Vec<CodingAgentMessage> = match previous {
        Some(p) => std::iter::once(path[p])
            .chain(path[previous_kept.unwrap_or(p)..p].iter().copied())
            .chain(path[p + 1..end].iter().copied())
            .filter_map(entry_message)
            .collect(),
        None => path.iter().copied().filter_map(entry_message).collect(),
    };
    let tokens_before = estimate_context_tokens(&context_messages).tokens;

    let cut = find_cut_point(path, boundary_start, end, settings.keep_recent_tokens);
    let first_kept_entry_id = path.get(cut.first_kept_entry_index)?.id().to_owned();
    let history_end = cut.turn_start_index.unwrap_or(cut.first_kept_entry_index);
    // The earlier compaction entry itself is not summarized again (its
    // summary is the previous summary).
    let collect = |range: std::ops::Range<usize>| -> Vec<CodingAgentMessage> {
        path[range]
            .iter()
            .filter(|e| !matches!(e, SessionEntry::Compaction(_)))
            .filter_map(|e| entry_message(e))
            .collect()
    };
    let messages_to_summarize = collect(boundary_start..history_end.max(boundary_start));
    let turn_prefix_messages = match cut.turn_start_index {
        Some(turn_start) => collect(turn_start..cut.first_kept_entry_index),
        None => Vec::new(),
    };

    let mut file_ops = FileOperations::default();
    let mut previous_summary = None;
    if let Some(SessionEntry::Compaction(prev)) = previous.map(|p| path[p]) {
        previous_summary = Some(prev.summary.clone());
        if prev.from_hook != Some(true)
            && let Some(details) = &prev.details
        {
            file_ops.add_from_details(details);
        }
    }
    for message in messages_to_summarize.iter().chain(&turn_prefix_messages) {
        file_ops.add_from_message(message);
    }

    Some(CompactionPreparation {
        first_kept_entry_id,
        messages_to_summarize,
        turn_prefix_messages,
        is_split_turn: cut.is_split_turn(),
        tokens_before,
        previous_summary,
        file_ops,
        settings: *settings,
    })
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
    /// `{readFiles, modifiedFiles}`.
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
    preparation: &CompactionPreparation,
    summarizer: &Summarizer<'_>,
    custom_instructions: Option<&str>,
) -> Result<CompactionResult, CompactionError> {
    let reserve = preparation.settings.reserve_tokens;
    let history_prompt = |messages: &[CodingAgentMessage]| {
        let instructions = if preparation.previous_summary.is_some() {
            UPDATE_SUMMARY_PROMPT
        } else {
            SUMMARY_PROMPT
        };
        summary_request_text(
            messages,
            preparation.previous_summary.as_deref(),
            instructions,
            custom_instructions,
        )
    };
    let history_budget = reserve * 4 / 5;
    let mut summary = if preparation.is_split_turn && !preparation.turn_prefix_messages.is_empty() {
        let history = if preparation.messages_to_summarize.is_empty() {
            "No prior history.".to_owned()
        } else {
            summarizer
                .summarize(
                    history_prompt(&preparation.messages_to_summarize),
                    history_budget,
                    reasoning_for(summarizer),
                )
                .await?
        };
        let prefix_prompt = summary_request_text(
            &preparation.turn_prefix_messages,
            None,
            TURN_PREFIX_PROMPT,
            None,
        );
        let prefix = summarizer
            .summarize(prefix_prompt, reserve / 2, None)
            .await?;
        format!("{history}\n\n---\n\n**Turn Context (split turn):**\n\n{prefix}")
    } else {
        summarizer
            .summarize(
                history_prompt(&preparation.messages_to_summarize),
                history_budget,
                reasoning_for(summarizer),
            )
            .await?
    };
    let (read, modified) = preparation.file_ops.file_lists();
    summary.push_str(&format_file_operations(&read, &modified));
    Ok(CompactionResult {
        summary,
        first_kept_entry_id: preparation.first_kept_entry_id.clone(),
        tokens_before: preparation.tokens_before,
        details: preparation.file_ops.details(),
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
        let path = session.branch_path(None);
        if matches!(path.last(), Some(SessionEntry::Compaction(_))) {
            return Err(CompactionError::AlreadyCompacted);
        }
        prepare_compaction(&path, settings).ok_or(CompactionError::NothingToCompact)?
    };
    if preparation.messages_to_summarize.is_empty() && preparation.turn_prefix_messages.is_empty() {
        return Err(CompactionError::NothingToCompact);
    }
    let result = compact(&preparation, summarizer, custom_instructions).await?;
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
