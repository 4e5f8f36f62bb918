//! Rebuilding the agent transcript from the session tree: the path from the
//! root to the active leaf, with the latest compaction applied.

use std::collections::HashMap;

use pi_agent_core::AgentMessage;
use pi_ai::Message;

use crate::messages::{
    CodingAgentMessage, create_branch_summary_message, create_compaction_summary_message,
    create_custom_message,
};
use crate::session::{CompactionEntry, SessionEntry};

/// A model as recorded in the session: provider and model id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    /// Provider name.
    pub provider: String,
    /// Model id.
    pub model_id: String,
}

/// What a resumed session starts from.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionContext {
    /// The transcript to hand to the agent.
    pub messages: Vec<CodingAgentMessage>,
    /// Latest thinking level on the path (`"off"` when none was recorded).
    pub thinking_level: String,
    /// Latest model on the path, from a `model_change` or an assistant message.
    pub model: Option<ModelRef>,
}

impl SessionContext {
    fn empty() -> Self {
        Self {
            messages: Vec::new(),
            thinking_level: "off".to_owned(),
            model: None,
        }
    }
}

/// The messages one entry contributes to the transcript: `message` its
/// message, `custom_message` a `custom` message, `branch_summary` (with a
/// non-empty summary) a `branchSummary`, `compaction` a `compactionSummary`;
/// every other entry nothing.
pub fn session_entry_to_context_messages(entry: &SessionEntry) -> Vec<CodingAgentMessage> {
    match entry {
        SessionEntry::Message(e) => vec![e.message.clone()],
        SessionEntry::CustomMessage(e) => vec![create_custom_message(
            &e.custom_type,
            e.content.clone(),
            e.display,
            e.details.clone(),
            &e.timestamp,
        )],
        SessionEntry::BranchSummary(e) if !e.summary.is_empty() => {
            vec![create_branch_summary_message(
                &e.summary,
                &e.from_id,
                &e.timestamp,
            )]
        }
        SessionEntry::Compaction(e) => vec![create_compaction_summary_message(
            &e.summary,
            e.tokens_before,
            &e.timestamp,
        )],
        SessionEntry::BranchSummary(_)
        | SessionEntry::ThinkingLevelChange(_)
        | SessionEntry::ModelChange(_)
        | SessionEntry::Custom(_)
        | SessionEntry::Label(_)
        | SessionEntry::SessionInfo(_) => Vec::new(),
    }
}

/// The entries from the root to `leaf` (inclusive), root first. Follows
/// `parentId` through `index` (id -> position in `entries`); stops at a
/// missing parent and never loops on a cycle.
pub fn path_to_root<'a>(
    entries: &'a [SessionEntry],
    index: &HashMap<String, usize>,
    leaf: usize,
) -> Vec<&'a SessionEntry> {
    let mut path = Vec::new();
    let mut current = entries.get(leaf);
    while let Some(entry) = current {
        path.push(entry);
        if path.len() > entries.len() {
            tracing::warn!("session tree has a parentId cycle at entry {}", entry.id());
            break;
        }
        current = entry
            .parent_id()
            .and_then(|parent| index.get(parent))
            .and_then(|&i| entries.get(i));
    }
    path.reverse();
    path
}

/// Builds the context for the active leaf. `leaf` `None` means "before the
/// first entry" (an empty context); an id that does not exist falls back to
/// the last entry, as pi does. Builds an id index; a caller that has one uses
/// [`build_session_context_indexed`].
pub fn build_session_context(entries: &[SessionEntry], leaf: Option<&str>) -> SessionContext {
    let index: HashMap<String, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id().to_owned(), i))
        .collect();
    build_session_context_indexed(entries, &index, leaf)
}

/// [`build_session_context`] with a prebuilt id -> position index.
///
/// Walks root -> leaf; the thinking level comes from the latest
/// `thinking_level_change`, the model from the latest `model_change` or
/// assistant message; with a compaction on the path the transcript is its
/// summary, then the entries from `firstKeptEntryId` up to the compaction,
/// then the entries after it.
pub fn build_session_context_indexed(
    entries: &[SessionEntry],
    index: &HashMap<String, usize>,
    leaf: Option<&str>,
) -> SessionContext {
    let Some(leaf_id) = leaf else {
        return SessionContext::empty();
    };
    let leaf_index = match index.get(leaf_id) {
        Some(&i) => i,
        None if entries.is_empty() => return SessionContext::empty(),
        None => entries.len() - 1,
    };
    let path = path_to_root(entries, index, leaf_index);

    let mut context = SessionContext::empty();
    let mut compaction: Option<(usize, &CompactionEntry)> = None;
    for (position, entry) in path.iter().enumerate() {
        match entry {
            SessionEntry::ThinkingLevelChange(e) => {
                context.thinking_level.clone_from(&e.thinking_level);
            }
            SessionEntry::ModelChange(e) => {
                context.model = Some(ModelRef {
                    provider: e.provider.clone(),
                    model_id: e.model_id.clone(),
                });
            }
            SessionEntry::Message(e) => {
                if let AgentMessage::Standard(Message::Assistant(a)) = &e.message {
                    context.model = Some(ModelRef {
                        provider: a.provider.to_string(),
                        model_id: a.model.clone(),
                    });
                }
            }
            SessionEntry::Compaction(e) => compaction = Some((position, e)),
            SessionEntry::BranchSummary(_)
            | SessionEntry::Custom(_)
            | SessionEntry::CustomMessage(_)
            | SessionEntry::Label(_)
            | SessionEntry::SessionInfo(_) => {}
        }
    }

    // Compaction entries on the path contribute only through the latest one,
    // whose summary comes first.
    let push = |entry: &SessionEntry, messages: &mut Vec<CodingAgentMessage>| {
        if !matches!(entry, SessionEntry::Compaction(_)) {
            messages.extend(session_entry_to_context_messages(entry));
        }
    };
    let mut messages = Vec::with_capacity(path.len());
    match compaction {
        Some((position, compaction)) => {
            messages.push(create_compaction_summary_message(
                &compaction.summary,
                compaction.tokens_before,
                &compaction.timestamp,
            ));
            let kept_start = path[..position]
                .iter()
                .position(|e| e.id() == compaction.first_kept_entry_id);
            if let Some(start) = kept_start {
                for entry in &path[start..position] {
                    push(entry, &mut messages);
                }
            }
            for entry in &path[position + 1..] {
                push(entry, &mut messages);
            }
        }
        None => {
            for entry in &path {
                push(entry, &mut messages);
            }
        }
    }
    context.messages = messages;
    context
}
