//! pi's `prepareCompaction`: where to cut the active path and what the
//! summary is made of.
//!
//! A path is read through [`PathSource`]: what each entry is comes without
//! reading it (a session knows the kind of each message entry it left in
//! its file), and the entries whose messages count are read one at a time
//! and dropped. Only the newest messages are read to find the cut and the
//! context size; the summarized ones are read once, in order, each
//! serialized straight into the summary request's text. A long session's
//! compaction so holds the request text, not its transcript.

use std::borrow::Cow;
use std::ops::Range;

use super::conversation::Conversation;
use super::summarize::FileOperations;
use super::{CompactionSettings, assistant_usage, calculate_context_tokens, estimate_tokens};
use crate::messages::CodingAgentMessage;
use crate::session::{BranchWalk, CompactionEntry, MessageKind, SessionEntry, Shape};

/// Size hint of the text a message kept in memory gives, for sizing the
/// request up front (a message read from the file counts its line).
const IN_MEMORY_HINT: usize = 256;

/// A path (root first) as compaction reads it.
pub(crate) trait PathSource {
    /// The number of entries.
    fn len(&self) -> usize;
    /// The id of the entry at `position`.
    fn id(&self, position: usize) -> &str;
    /// What the entry at `position` is, without reading it.
    fn shape(&self, position: usize) -> Shape<'_>;
    /// The entry at `position`, read if needed (and not kept).
    fn entry(&self, position: usize) -> Cow<'_, SessionEntry>;
    /// The size of the entry as stored, when it is not in memory.
    fn size_hint(&self, position: usize) -> Option<usize>;
}

impl PathSource for [&SessionEntry] {
    fn len(&self) -> usize {
        <[&SessionEntry]>::len(self)
    }

    fn id(&self, position: usize) -> &str {
        self[position].id()
    }

    fn shape(&self, position: usize) -> Shape<'_> {
        Shape::Entry(self[position])
    }

    fn entry(&self, position: usize) -> Cow<'_, SessionEntry> {
        Cow::Borrowed(self[position])
    }

    fn size_hint(&self, _: usize) -> Option<usize> {
        None
    }
}

impl PathSource for BranchWalk<'_> {
    fn len(&self) -> usize {
        BranchWalk::len(self)
    }

    fn id(&self, position: usize) -> &str {
        BranchWalk::id(self, position)
    }

    fn shape(&self, position: usize) -> Shape<'_> {
        BranchWalk::shape(self, position)
    }

    fn entry(&self, position: usize) -> Cow<'_, SessionEntry> {
        BranchWalk::entry(self, position)
    }

    fn size_hint(&self, position: usize) -> Option<usize> {
        self.line_len(position)
    }
}

/// The message an entry contributes to compaction input (unlike the
/// context rebuild, a branch summary counts even when empty); a message
/// entry's message is borrowed.
pub(crate) fn entry_message(entry: &SessionEntry) -> Option<Cow<'_, CodingAgentMessage>> {
    crate::session::entry_message(entry, true)
}

/// The compaction entry, when the entry is one.
fn compaction_of(shape: Shape<'_>) -> Option<&CompactionEntry> {
    match shape.entry() {
        Some(SessionEntry::Compaction(c)) => Some(c),
        _ => None,
    }
}

/// Valid cut points: messages but tool results, branch summaries and
/// custom messages.
fn is_cut_point(shape: Shape<'_>) -> bool {
    match shape.message_kind() {
        Some(kind) => kind != MessageKind::ToolResult,
        None => matches!(
            shape.entry(),
            Some(SessionEntry::BranchSummary(_) | SessionEntry::CustomMessage(_))
        ),
    }
}

/// A turn starts at a user or bash message, a branch summary or a custom message.
fn is_turn_start(shape: Shape<'_>) -> bool {
    match shape.message_kind() {
        Some(kind) => matches!(kind, MessageKind::User | MessageKind::BashExecution),
        None => matches!(
            shape.entry(),
            Some(SessionEntry::BranchSummary(_) | SessionEntry::CustomMessage(_))
        ),
    }
}

/// The entry (at or before `index`, not before `start`) that starts the
/// turn: a user or bash message, a branch summary or a custom message.
pub fn find_turn_start_index(path: &[&SessionEntry], index: usize, start: usize) -> Option<usize> {
    turn_start_in(path, index, start)
}

fn turn_start_in<P: PathSource + ?Sized>(path: &P, index: usize, start: usize) -> Option<usize> {
    (start..=index.min(path.len().saturating_sub(1)))
        .rev()
        .find(|&i| is_turn_start(path.shape(i)))
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
    cut_point_in(path, start, end, keep_recent_tokens)
}

/// [`find_cut_point`] reading only the messages it sums.
fn cut_point_in<P: PathSource + ?Sized>(
    path: &P,
    start: usize,
    end: usize,
    keep_recent_tokens: u64,
) -> CutPoint {
    let next_cut_point = |from: usize| (from..end).find(|&i| is_cut_point(path.shape(i)));
    let Some(first) = next_cut_point(start) else {
        return CutPoint {
            first_kept_entry_index: start,
            turn_start_index: None,
        };
    };
    let mut cut = first;
    let mut accumulated = 0u64;
    for i in (start..end).rev() {
        if path.shape(i).message_kind().is_none() {
            continue;
        }
        let entry = path.entry(i);
        let SessionEntry::Message(message) = &*entry else {
            continue;
        };
        accumulated += estimate_tokens(&message.message);
        if accumulated >= keep_recent_tokens {
            if let Some(c) = next_cut_point(i) {
                cut = c;
            }
            break;
        }
    }
    while cut > start {
        let before = path.shape(cut - 1);
        if before.message_kind().is_some() || compaction_of(before).is_some() {
            break;
        }
        cut -= 1;
    }
    // The turn is whole when the first message kept is a user message (pi
    // looks only at the entry at the cut, so a model change kept just before
    // a user message made it a "split turn"; we look past such entries).
    let at_user = (cut..end)
        .find_map(|i| path.shape(i).message_kind())
        .is_some_and(|kind| kind == MessageKind::User);
    CutPoint {
        first_kept_entry_index: cut,
        turn_start_index: if at_user {
            None
        } else {
            turn_start_in(path, cut, start)
        },
    }
}

/// Everything needed to summarize, computed from the active path.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionPreparation {
    /// Id of the first entry kept.
    pub first_kept_entry_id: String,
    /// The messages replaced by the summary, serialized for its request.
    pub messages_to_summarize: Conversation,
    /// The start of a turn cut in two, summarized separately (serialized).
    pub turn_prefix_messages: Conversation,
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
    /// Where the summarized messages are on the path (entry positions).
    pub summarize_range: Range<usize>,
    /// Where the split turn's start is on the path (empty when none).
    pub turn_prefix_range: Range<usize>,
}

/// The messages of the entries at `range` of `path` (the compaction entry
/// aside) as pi's message JSON: pi's `messagesToSummarize` /
/// `turnPrefixMessages` of its `CompactionPreparation`.
pub fn messages_json(path: &[&SessionEntry], range: Range<usize>) -> Vec<serde_json::Value> {
    path.get(range)
        .unwrap_or_default()
        .iter()
        .filter(|e| compaction_of(Shape::Entry(e)).is_none())
        .filter_map(|e| entry_message(e))
        .filter_map(|m| serde_json::to_value(m.as_ref()).ok())
        .collect()
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
    prepare_in(path, settings)
}

/// [`prepare_compaction`] of a session's active branch, keeping none of
/// its entries (see [`BranchWalk`]).
pub fn prepare_branch_compaction(
    branch: &BranchWalk<'_>,
    settings: &CompactionSettings,
) -> Option<CompactionPreparation> {
    prepare_in(branch, settings)
}

/// True when the last entry of the path is a compaction.
pub(crate) fn ends_with_compaction<P: PathSource + ?Sized>(path: &P) -> bool {
    path.len()
        .checked_sub(1)
        .is_some_and(|last| compaction_of(path.shape(last)).is_some())
}

fn prepare_in<P: PathSource + ?Sized>(
    path: &P,
    settings: &CompactionSettings,
) -> Option<CompactionPreparation> {
    let end = path.len();
    if end == 0 || ends_with_compaction(path) {
        return None;
    }
    let previous = (0..end)
        .rev()
        .find_map(|i| compaction_of(path.shape(i)).map(|c| (i, c)));
    let previous_kept =
        previous.and_then(|(_, c)| (0..end).find(|&i| path.id(i) == c.first_kept_entry_id));
    // The context as the session gives it: the earlier summary, the
    // messages it kept, then the newer ones.
    let context = match previous {
        Some((p, _)) => [p..p + 1, previous_kept.unwrap_or(p)..p, p + 1..end],
        None => [0..end, 0..0, 0..0],
    };
    let tokens_before = context_tokens(path, &context);
    let boundary_start = match previous {
        Some((p, _)) => previous_kept.unwrap_or(p + 1),
        None => 0,
    };

    let cut = cut_point_in(path, boundary_start, end, settings.keep_recent_tokens);
    if cut.first_kept_entry_index >= end {
        return None;
    }
    let first_kept_entry_id = path.id(cut.first_kept_entry_index).to_owned();
    let history_end = cut.turn_start_index.unwrap_or(cut.first_kept_entry_index);

    let mut file_ops = FileOperations::default();
    let previous_summary = previous.map(|(_, prev)| {
        if prev.from_hook != Some(true)
            && let Some(details) = &prev.details
        {
            file_ops.add_from_details(details);
        }
        prev.summary.clone()
    });
    // The earlier compaction entry itself is not summarized again (its
    // summary is the previous summary).
    let extra = previous_summary.as_ref().map_or(0, String::len);
    let messages_to_summarize = serialize(
        path,
        boundary_start..history_end.max(boundary_start),
        extra,
        &mut file_ops,
    );
    let summarize_range = boundary_start..history_end.max(boundary_start);
    let turn_prefix_range = match cut.turn_start_index {
        Some(turn_start) => turn_start..cut.first_kept_entry_index,
        None => 0..0,
    };
    let turn_prefix_messages = match cut.turn_start_index {
        Some(turn_start) => serialize(
            path,
            turn_start..cut.first_kept_entry_index,
            0,
            &mut file_ops,
        ),
        None => Conversation::default(),
    };

    Some(CompactionPreparation {
        first_kept_entry_id,
        messages_to_summarize,
        turn_prefix_messages,
        is_split_turn: cut.is_split_turn(),
        tokens_before,
        previous_summary,
        file_ops,
        settings: *settings,
        summarize_range,
        turn_prefix_range,
    })
}

/// pi's `estimateContextTokens` of the messages of the `context` positions
/// (in order): the last successful assistant usage plus estimates of the
/// messages after it, read from the newest back to that usage.
fn context_tokens<P: PathSource + ?Sized>(path: &P, context: &[Range<usize>]) -> u64 {
    let mut trailing = 0;
    for i in context.iter().rev().flat_map(|r| r.clone().rev()) {
        let entry = path.entry(i);
        let Some(message) = entry_message(&entry) else {
            continue;
        };
        if let Some(usage) = assistant_usage(&message) {
            return calculate_context_tokens(usage) + trailing;
        }
        trailing += estimate_tokens(&message);
    }
    trailing
}

/// The messages of the entries in `range` (compaction entries left out),
/// read one at a time into their serialized conversation, their file
/// operations recorded; `extra` is room for the request's other text.
fn serialize<P: PathSource + ?Sized>(
    path: &P,
    range: Range<usize>,
    extra: usize,
    file_ops: &mut FileOperations,
) -> Conversation {
    let counts = |i: usize| compaction_of(path.shape(i)).is_none();
    let size: usize = range
        .clone()
        .filter(|&i| counts(i))
        .map(|i| path.size_hint(i).unwrap_or(IN_MEMORY_HINT))
        .sum();
    let mut conversation = Conversation::with_capacity(size + extra);
    for i in range.filter(|&i| counts(i)) {
        let entry = path.entry(i);
        if let Some(message) = entry_message(&entry) {
            file_ops.add_from_message(&message);
            conversation.push(&message);
        }
    }
    conversation
}
