//! Branch summarization: when the user leaves a branch of the tree, the
//! entries between the old leaf and the common ancestor are summarized so
//! the new branch keeps their context.

use pi_agent_core::AgentMessage;
use pi_ai::Message;

use super::summarize::{
    BRANCH_SUMMARY_PREAMBLE, BRANCH_SUMMARY_PROMPT, FileOperations, Summarizer,
    format_file_operations, summary_request_text,
};
use super::{CompactionError, entry_message, estimate_tokens};
use crate::messages::CodingAgentMessage;
use crate::session::{SessionEntry, SessionManager};

/// The entries to summarize when moving from `old_leaf` to `target`: from
/// the old leaf back to (not including) the deepest common ancestor, oldest
/// first, and that ancestor's id.
pub fn collect_entries_for_branch_summary<'a>(
    session: &'a SessionManager,
    old_leaf: Option<&str>,
    target: &str,
) -> (Vec<&'a SessionEntry>, Option<String>) {
    let Some(old_leaf) = old_leaf else {
        return (Vec::new(), None);
    };
    let old_path: std::collections::HashSet<&str> = session
        .branch_path(Some(old_leaf))
        .iter()
        .map(|e| e.id())
        .collect();
    let common = session
        .branch_path(Some(target))
        .iter()
        .rev()
        .find(|e| old_path.contains(e.id()))
        .map(|e| e.id().to_owned());
    let mut entries = Vec::new();
    let mut current = Some(old_leaf);
    while let Some(id) = current {
        if Some(id) == common.as_deref() {
            break;
        }
        let Some(entry) = session.entry(id) else {
            break;
        };
        entries.push(entry);
        if entries.len() > session.entry_count() {
            break;
        }
        current = entry.parent_id();
    }
    entries.reverse();
    (entries, common)
}

/// Messages chosen for a branch summary.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchPreparation {
    /// Messages in chronological order (tool results left out).
    pub messages: Vec<CodingAgentMessage>,
    /// Files read and modified on the branch (and in earlier branch summaries).
    pub file_ops: FileOperations,
    /// Estimated tokens of `messages`.
    pub total_tokens: u64,
}

/// Picks messages newest first until `token_budget` (0: no limit) is
/// reached; a summary entry that does not fit is still taken while under
/// 90% of the budget. File operations come from every entry, including
/// the details of earlier pi-made branch summaries.
pub fn prepare_branch_entries(entries: &[&SessionEntry], token_budget: u64) -> BranchPreparation {
    let mut file_ops = FileOperations::default();
    for entry in entries {
        if let SessionEntry::BranchSummary(summary) = entry
            && summary.from_hook != Some(true)
            && let Some(details) = &summary.details
        {
            file_ops.add_from_details(details);
        }
    }
    let mut messages = Vec::new();
    let mut total_tokens = 0u64;
    for entry in entries.iter().rev() {
        let Some(message) = entry_message(entry).map(std::borrow::Cow::into_owned) else {
            continue;
        };
        if matches!(message, AgentMessage::Standard(Message::ToolResult(_))) {
            continue;
        }
        file_ops.add_from_message(&message);
        let tokens = estimate_tokens(&message);
        if token_budget > 0 && total_tokens + tokens > token_budget {
            let is_summary = matches!(
                entry,
                SessionEntry::Compaction(_) | SessionEntry::BranchSummary(_)
            );
            if is_summary && total_tokens * 10 < token_budget * 9 {
                messages.push(message);
                total_tokens += tokens;
            }
            break;
        }
        messages.push(message);
        total_tokens += tokens;
    }
    messages.reverse();
    BranchPreparation {
        messages,
        file_ops,
        total_tokens,
    }
}

/// Options of [`generate_branch_summary`].
#[derive(Debug, Clone, Default)]
pub struct BranchSummaryOptions {
    /// Extra focus for the summary.
    pub custom_instructions: Option<String>,
    /// Use `custom_instructions` instead of the default instructions.
    pub replace_instructions: bool,
    /// Tokens kept free (default 16384 when 0).
    pub reserve_tokens: u64,
}

/// A branch summary, ready for [`SessionManager::branch_with_summary`].
#[derive(Debug, Clone, PartialEq)]
pub struct BranchSummaryResult {
    /// Preamble, model text, then the file lists.
    pub summary: String,
    /// Files only read.
    pub read_files: Vec<String>,
    /// Files written or edited.
    pub modified_files: Vec<String>,
}

/// Summarizes the entries of a branch being left (budget
/// `contextWindow - reserveTokens`, answer up to 2048 tokens).
pub async fn generate_branch_summary(
    entries: &[&SessionEntry],
    summarizer: &Summarizer<'_>,
    options: &BranchSummaryOptions,
) -> Result<BranchSummaryResult, CompactionError> {
    let reserve = if options.reserve_tokens == 0 {
        16_384
    } else {
        options.reserve_tokens
    };
    let window = if summarizer.model.context_window == 0 {
        128_000
    } else {
        summarizer.model.context_window
    };
    let preparation = prepare_branch_entries(entries, window.saturating_sub(reserve));
    let (read_files, modified_files) = preparation.file_ops.file_lists();
    if preparation.messages.is_empty() {
        return Ok(BranchSummaryResult {
            summary: "No content to summarize".to_owned(),
            read_files,
            modified_files,
        });
    }
    let custom = options.custom_instructions.as_deref();
    let prompt = match custom {
        Some(custom) if options.replace_instructions => {
            summary_request_text(&preparation.messages, None, custom, None)
        }
        _ => summary_request_text(&preparation.messages, None, BRANCH_SUMMARY_PROMPT, custom),
    };
    let text = summarizer.summarize(prompt, 2048, None).await?;
    let mut summary = format!("{BRANCH_SUMMARY_PREAMBLE}{text}");
    summary.push_str(&format_file_operations(&read_files, &modified_files));
    Ok(BranchSummaryResult {
        summary,
        read_files,
        modified_files,
    })
}

/// Leaves the current branch for `new_leaf` (`None`: before the first
/// entry) with a summary of what is left behind, appended as a
/// `branch_summary` entry with `{readFiles, modifiedFiles}` details. Returns
/// the entry id.
pub async fn summarize_and_branch(
    session: &mut SessionManager,
    new_leaf: Option<&str>,
    summarizer: &Summarizer<'_>,
    options: &BranchSummaryOptions,
) -> Result<String, CompactionError> {
    let result = {
        let old_leaf = session.leaf_id().map(str::to_owned);
        let target = new_leaf.unwrap_or_default();
        let (entries, _) = collect_entries_for_branch_summary(session, old_leaf.as_deref(), target);
        generate_branch_summary(&entries, summarizer, options).await?
    };
    let details = serde_json::json!({
        "readFiles": result.read_files,
        "modifiedFiles": result.modified_files,
    });
    Ok(session.branch_with_summary(new_leaf, &result.summary, Some(details), None)?)
}
