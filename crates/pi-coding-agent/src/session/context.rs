//! Rebuilding the agent transcript from the session tree: the path from the
//! root to the active leaf, with the latest compaction applied.

use std::borrow::Cow;
use std::collections::HashMap;

use pi_agent_core::AgentMessage;
use pi_ai::Message;

use super::{CompactionEntry, SessionEntry};
use crate::messages::{
    CodingAgentMessage, create_branch_summary_message, create_compaction_summary_message,
    create_custom_message,
};

/// A model as recorded in the session: provider and model id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    /// Provider name.
    pub provider: String,
    /// Model id.
    pub model_id: String,
}

/// Spare room in a context's message list for the messages of a run's
/// first turns (a prompt, an answer, tool calls and their results), so the
/// agent's first appends to a resumed transcript do not copy it.
pub(super) const RUN_ROOM: usize = 32;

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
    /// The context before the first entry: no messages, thinking off, no model.
    pub(crate) fn empty() -> Self {
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
    context_message(entry).into_iter().collect()
}

/// True when [`context_message`] gives a message for `entry`.
pub(crate) fn adds_message(entry: &SessionEntry) -> bool {
    match entry {
        SessionEntry::Message(_) | SessionEntry::CustomMessage(_) | SessionEntry::Compaction(_) => {
            true
        }
        SessionEntry::BranchSummary(e) => !e.summary.is_empty(),
        SessionEntry::ThinkingLevelChange(_)
        | SessionEntry::ModelChange(_)
        | SessionEntry::Custom(_)
        | SessionEntry::Label(_)
        | SessionEntry::SessionInfo(_)
        | SessionEntry::Raw(_) => false,
    }
}

/// The message (at most one) an entry contributes: see
/// [`session_entry_to_context_messages`].
pub(crate) fn context_message(entry: &SessionEntry) -> Option<CodingAgentMessage> {
    entry_message(entry, false).map(Cow::into_owned)
}

/// The message an entry contributes, a message entry's borrowed. An empty
/// branch summary counts only with `empty_branch_summaries` (compaction
/// input counts it; the context rebuild does not).
pub(crate) fn entry_message(
    entry: &SessionEntry,
    empty_branch_summaries: bool,
) -> Option<Cow<'_, CodingAgentMessage>> {
    match entry {
        SessionEntry::Message(e) => Some(Cow::Borrowed(&e.message)),
        SessionEntry::CustomMessage(e) => Some(Cow::Owned(create_custom_message(
            &e.custom_type,
            e.content.clone(),
            e.display,
            e.details.clone(),
            &e.timestamp,
        ))),
        SessionEntry::BranchSummary(e) if empty_branch_summaries || !e.summary.is_empty() => {
            Some(Cow::Owned(create_branch_summary_message(
                &e.summary,
                &e.from_id,
                &e.timestamp,
            )))
        }
        SessionEntry::Compaction(e) => Some(Cow::Owned(create_compaction_summary_message(
            &e.summary,
            e.tokens_before,
            &e.timestamp,
        ))),
        SessionEntry::BranchSummary(_)
        | SessionEntry::ThinkingLevelChange(_)
        | SessionEntry::ModelChange(_)
        | SessionEntry::Custom(_)
        | SessionEntry::Label(_)
        | SessionEntry::SessionInfo(_)
        | SessionEntry::Raw(_) => None,
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
    let view: Vec<PathEntry<'_>> = path.iter().map(|e| PathEntry::Entry(e)).collect();
    ContextPlan::new(&view).build(|position| context_message(path[position]))
}

/// An entry of a path as [`ContextPlan`] sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PathEntry<'a> {
    /// An entry in memory.
    Entry(&'a SessionEntry),
    /// A message entry not in memory as a whole (see
    /// [`SessionManager`](crate::session::SessionManager)), with the model of
    /// an assistant message.
    Message {
        /// The entry id.
        id: &'a str,
        /// Provider and model of an assistant message.
        model: Option<&'a ModelRef>,
    },
}

impl PathEntry<'_> {
    fn id(&self) -> &str {
        match self {
            Self::Entry(entry) => entry.id(),
            Self::Message { id, .. } => id,
        }
    }
}

/// What the context of a path is made of: the settings found on it and
/// the positions whose messages form the transcript.
#[derive(Debug)]
pub(crate) struct ContextPlan {
    thinking_level: String,
    model: Option<ModelRef>,
    /// The summary of the latest compaction on the path, which comes first.
    summary: Option<CodingAgentMessage>,
    /// Positions in the path whose messages follow, in order.
    kept: Vec<usize>,
}

impl ContextPlan {
    /// Plans the context of `path` (root first).
    pub(crate) fn new(path: &[PathEntry<'_>]) -> Self {
        let mut thinking_level = "off";
        let mut model = None;
        let mut compaction: Option<(usize, &CompactionEntry)> = None;
        for (position, entry) in path.iter().enumerate() {
            let entry = match entry {
                PathEntry::Entry(entry) => entry,
                PathEntry::Message { model: found, .. } => {
                    if let Some(found) = found {
                        model = Some((*found).clone());
                    }
                    continue;
                }
            };
            match entry {
                SessionEntry::ThinkingLevelChange(e) => thinking_level = &e.thinking_level,
                SessionEntry::ModelChange(e) => {
                    model = Some(ModelRef {
                        provider: e.provider.clone(),
                        model_id: e.model_id.clone(),
                    });
                }
                SessionEntry::Message(e) => {
                    if let AgentMessage::Standard(Message::Assistant(a)) = &e.message {
                        model = Some(ModelRef {
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
                | SessionEntry::SessionInfo(_)
                | SessionEntry::Raw(_) => {}
            }
        }
        // Compaction entries on the path contribute only through the latest
        // one, whose summary comes first.
        let not_compaction =
            |&p: &usize| !matches!(path[p], PathEntry::Entry(SessionEntry::Compaction(_)));
        let (summary, kept) = match compaction {
            Some((position, compaction)) => {
                let kept_start = path[..position]
                    .iter()
                    .position(|e| e.id() == compaction.first_kept_entry_id)
                    .unwrap_or(position);
                let kept = (kept_start..position)
                    .chain(position + 1..path.len())
                    .filter(not_compaction)
                    .collect();
                let summary = create_compaction_summary_message(
                    &compaction.summary,
                    compaction.tokens_before,
                    &compaction.timestamp,
                );
                (Some(summary), kept)
            }
            None => (None, (0..path.len()).filter(not_compaction).collect()),
        };
        Self {
            thinking_level: thinking_level.to_owned(),
            model,
            summary,
            kept,
        }
    }

    /// Positions in the path whose messages form the transcript (after the
    /// compaction summary, if any), in order.
    pub(crate) fn kept(&self) -> &[usize] {
        &self.kept
    }

    /// The context whose transcript is `messages`, the messages of the kept
    /// positions, already gathered.
    pub(crate) fn build_from(self, mut messages: Vec<CodingAgentMessage>) -> SessionContext {
        if let Some(summary) = self.summary {
            // Exactly one more: the amortized growth would double the list.
            messages.reserve_exact(1);
            messages.insert(0, summary);
        }
        SessionContext {
            messages,
            thinking_level: self.thinking_level,
            model: self.model,
        }
    }

    /// The context, with `message(position)` giving the message (if any)
    /// of each kept position of the path, in order.
    pub(crate) fn build(
        self,
        mut message: impl FnMut(usize) -> Option<CodingAgentMessage>,
    ) -> SessionContext {
        let mut messages = Vec::with_capacity(self.kept.len() + 1 + RUN_ROOM);
        messages.extend(self.summary);
        messages.extend(self.kept.into_iter().filter_map(&mut message));
        SessionContext {
            messages,
            thinking_level: self.thinking_level,
            model: self.model,
        }
    }
}
