//! Moving around the session tree (pi's `navigateTree`): the leaf moves to
//! a chosen entry, optionally leaving a summary of the branch left behind.

use pi_agent_core::AgentMessage;
use pi_ai::{CancellationToken, Message, UserBlock, UserContent};

use super::App;
use crate::compaction::{
    BranchSummaryOptions, CompactionError, Summarizer, collect_entries_for_branch_summary,
    generate_branch_summary,
};
use crate::session::{SessionEntry, SessionError};

/// Why a move in the tree failed.
#[derive(Debug, thiserror::Error)]
pub enum NavigateError {
    /// The agent is running.
    #[error("Cannot navigate the session tree while the agent is running")]
    Streaming,
    /// No entry has that id.
    #[error("Entry {0} not found")]
    NotFound(String),
    /// The summary was cancelled.
    #[error("Branch summarization cancelled")]
    Aborted,
    /// The summary could not be made.
    #[error("{0}")]
    Summary(CompactionError),
    /// The session could not be written.
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// How to leave the current branch.
#[derive(Debug, Clone, Default)]
pub struct NavigateOptions {
    /// Summarize the branch being left.
    pub summarize: bool,
    /// Extra focus for the summary.
    pub custom_instructions: Option<String>,
    /// Cancels the summary.
    pub cancel: CancellationToken,
}

/// What a move did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TreeNavigation {
    /// The text of the chosen user (or custom) message, for the editor.
    pub editor_text: Option<String>,
    /// True when a `branch_summary` entry was written.
    pub summarized: bool,
    /// True when the target was already the leaf (nothing changed).
    pub unchanged: bool,
    /// True when an extension cancelled the move (`session_before_tree`).
    pub cancelled: bool,
}

fn content_text(content: &UserContent) -> String {
    match content {
        UserContent::Text(text) => text.clone(),
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(UserBlock::as_text)
            .collect::<Vec<_>>()
            .join(""),
    }
}

/// The new leaf and the editor text for a target entry: a user or custom
/// message is re-opened for editing (the leaf goes to its parent); any
/// other entry becomes the leaf.
fn leaf_for(target: &SessionEntry) -> (Option<String>, Option<String>) {
    match target {
        SessionEntry::Message(m) => match &m.message {
            AgentMessage::Standard(Message::User(user)) => {
                (m.parent_id.clone(), Some(content_text(&user.content)))
            }
            _ => (Some(m.id.clone()), None),
        },
        SessionEntry::CustomMessage(c) => (c.parent_id.clone(), Some(content_text(&c.content))),
        other => (Some(other.id().to_owned()), None),
    }
}

impl App {
    /// Moves the session's leaf to `target_id` (pi's `navigateTree`). With
    /// `summarize`, the entries from the old leaf back to the common
    /// ancestor are summarized first (the session is not locked while the
    /// model answers) and written as a `branch_summary` entry at the new
    /// position. The agent's messages are rebuilt from the new branch.
    pub async fn navigate_tree(
        &self,
        target_id: &str,
        options: NavigateOptions,
    ) -> Result<TreeNavigation, NavigateError> {
        if self.agent.is_streaming() {
            return Err(NavigateError::Streaming);
        }
        let (target, entries, old_leaf) = {
            let session = self.session();
            let old_leaf = session.leaf_id().map(str::to_owned);
            if old_leaf.as_deref() == Some(target_id) {
                return Ok(TreeNavigation {
                    unchanged: true,
                    ..TreeNavigation::default()
                });
            }
            let target = session
                .entry(target_id)
                .cloned()
                .ok_or_else(|| NavigateError::NotFound(target_id.to_owned()))?;
            // Only the branch being left is copied, and only to summarize it.
            let entries: Vec<SessionEntry> = if options.summarize {
                collect_entries_for_branch_summary(&session, old_leaf.as_deref(), target_id)
                    .0
                    .into_iter()
                    .cloned()
                    .collect()
            } else {
                Vec::new()
            };
            (target, entries, old_leaf)
        };
        let mut options = options;
        let mut extension_summary = None;
        if self.extensions.has_handlers("session_before_tree") {
            let event = crate::extensions::SessionBeforeTreeEvent {
                preparation: crate::extensions::TreePreparation {
                    target_id: target_id.to_owned(),
                    old_leaf_id: old_leaf.clone(),
                    common_ancestor_id: None,
                    entries_to_summarize: entries
                        .iter()
                        .filter_map(|e| serde_json::to_value(e).ok())
                        .collect(),
                    user_wants_summary: options.summarize,
                    custom_instructions: options.custom_instructions.clone(),
                    replace_instructions: None,
                    label: None,
                },
            };
            if let Some(answer) = self.extensions.emit_before_tree(event).await {
                if answer.cancel {
                    return Ok(TreeNavigation {
                        cancelled: true,
                        ..TreeNavigation::default()
                    });
                }
                if answer.custom_instructions.is_some() {
                    options.custom_instructions = answer.custom_instructions;
                }
                extension_summary = answer.summary;
            }
        }
        let from_extension = extension_summary.is_some();
        let summary = if let Some(given) = extension_summary {
            Some(crate::compaction::BranchSummaryResult {
                summary: given.summary,
                read_files: Vec::new(),
                modified_files: Vec::new(),
            })
        } else if entries.is_empty() {
            None
        } else {
            let model = self.agent.model();
            let mut summarizer = Summarizer::new(&model);
            summarizer.api_key = self.resolve_api_key(&model).await;
            summarizer.cancel = options.cancel.clone();
            let refs: Vec<&SessionEntry> = entries.iter().collect();
            let summary_options = BranchSummaryOptions {
                custom_instructions: options.custom_instructions.clone(),
                replace_instructions: false,
                reserve_tokens: self.settings.branch_summary_reserve_tokens(),
            };
            match generate_branch_summary(&refs, &summarizer, &summary_options).await {
                Ok(result) => Some(result),
                Err(CompactionError::Aborted) => return Err(NavigateError::Aborted),
                Err(e) if options.cancel.is_cancelled() => {
                    tracing::debug!("branch summary ended by cancel: {e}");
                    return Err(NavigateError::Aborted);
                }
                Err(e) => return Err(NavigateError::Summary(e)),
            }
        };
        let (new_leaf, editor_text) = leaf_for(&target);
        let summarized = summary.is_some();
        let context = {
            let mut session = self.session();
            match (summary, new_leaf.as_deref()) {
                (Some(result), leaf) => {
                    let details = serde_json::json!({
                        "readFiles": result.read_files,
                        "modifiedFiles": result.modified_files,
                    });
                    session.branch_with_summary(
                        leaf,
                        &result.summary,
                        Some(details),
                        Some(from_extension),
                    )?;
                }
                (None, None) => session.reset_leaf(),
                (None, Some(leaf)) => session.branch(leaf)?,
            }
            let summary_entry = summarized
                .then(|| session.leaf_id().and_then(|id| session.entry(id)))
                .flatten()
                .and_then(|e| serde_json::to_value(e).ok());
            (
                session.build_session_context(),
                summary_entry,
                session.leaf_id().map(str::to_owned),
            )
        };
        let (context, summary_entry, new_leaf_id) = context;
        self.agent.replace_messages(context.messages);
        self.extensions
            .emit(crate::extensions::SessionTreeEvent {
                new_leaf_id,
                old_leaf_id: old_leaf,
                summary_entry,
                from_extension: summarized.then_some(from_extension),
            })
            .await;
        Ok(TreeNavigation {
            editor_text,
            summarized,
            unchanged: false,
            cancelled: false,
        })
    }

    /// Sets (or with `None` clears) the label of entry `target_id`.
    pub fn set_entry_label(
        &self,
        target_id: &str,
        label: Option<&str>,
    ) -> Result<(), SessionError> {
        self.session()
            .append_label_change(target_id, label)
            .map(|_| ())
    }
}
