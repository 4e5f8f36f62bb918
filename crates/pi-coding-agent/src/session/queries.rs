//! What a [`SessionManager`] answers: its entries, paths, tree and the
//! context of the active leaf.

use std::ops::Range;
use std::path::Path;

use super::SessionManager;
use super::context::{ContextPlan, PathEntry, RUN_ROOM, SessionContext, adds_message};
use super::entry::{SessionEntry, SessionHeader};
use super::load::LoadDiagnostic;
use super::store::{Sources, Stored};
use super::tree::SessionTree;
use super::walk::Shape;

impl SessionManager {
    /// The working directory of the session.
    pub fn cwd(&self) -> &str {
        &self.cwd
    }

    /// Directory of new session files (`None` in memory).
    pub fn session_dir(&self) -> Option<&Path> {
        self.session_dir.as_deref()
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.header.id
    }

    /// The session file (`None` in memory). It may not exist yet: see the
    /// type's documentation on lazy persistence.
    pub fn session_file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// True when the session is stored in a file.
    pub fn is_persisted(&self) -> bool {
        self.session_dir.is_some()
    }

    /// The header.
    pub fn header(&self) -> &SessionHeader {
        &self.header
    }

    /// The number of entries (the header excluded).
    pub fn entry_count(&self) -> usize {
        self.entries.len()
    }

    /// Every entry in append order (the header excluded). Message entries
    /// read from the file are read again from their lines (once).
    pub fn entries(&self) -> Vec<&SessionEntry> {
        self.entries.iter().map(|s| self.get(s)).collect()
    }

    /// Visits every entry in append order. An entry not in memory is read
    /// again from its line and dropped after the visit, not kept, so a
    /// pass over a long session holds one such entry at a time (where
    /// [`Self::entries`] keeps them all).
    pub fn for_each_entry(&self, mut visit: impl FnMut(&SessionEntry)) {
        for stored in &self.entries {
            visit(&stored.read_uncached(self.source.as_ref()));
        }
    }

    /// How many entries of each kind the session holds, without reading
    /// any line again (only message entries are ever out of memory):
    /// `(messages, compactions)`.
    pub fn message_and_compaction_counts(&self) -> (usize, usize) {
        self.entries
            .iter()
            .fold((0, 0), |(messages, compactions), stored| {
                match stored.shape() {
                    Shape::Message(_) | Shape::Entry(SessionEntry::Message(_)) => {
                        (messages + 1, compactions)
                    }
                    Shape::Entry(SessionEntry::Compaction(_)) => (messages, compactions + 1),
                    Shape::Entry(_) => (messages, compactions),
                }
            })
    }

    /// A stored entry, read again from the file if it is not in memory.
    fn get<'a>(&'a self, stored: &'a Stored) -> &'a SessionEntry {
        stored.get(self.source.as_ref())
    }

    /// Lines skipped when the file was loaded.
    pub fn diagnostics(&self) -> &[LoadDiagnostic] {
        &self.diagnostics
    }

    /// Id of the active leaf (`None` before the first entry).
    pub fn leaf_id(&self) -> Option<&str> {
        self.leaf.and_then(|i| self.entries.get(i)).map(Stored::id)
    }

    /// The active leaf entry.
    pub fn leaf_entry(&self) -> Option<&SessionEntry> {
        self.leaf
            .and_then(|i| self.entries.get(i))
            .map(|s| self.get(s))
    }

    /// The entry with this id.
    pub fn entry(&self, id: &str) -> Option<&SessionEntry> {
        self.index
            .get(id, &self.entries)
            .and_then(|i| self.entries.get(i))
            .map(|s| self.get(s))
    }

    /// The direct children of `parent_id`, in append order.
    pub fn children(&self, parent_id: &str) -> Vec<&SessionEntry> {
        self.entries
            .iter()
            .filter(|e| e.parent_id() == Some(parent_id))
            .map(|s| self.get(s))
            .collect()
    }

    /// The label of an entry.
    pub fn label(&self, id: &str) -> Option<&str> {
        self.labels.get(id).map(String::as_str)
    }

    /// The path from the root to `from_id` (default: the leaf), root first.
    pub fn branch_path(&self, from_id: Option<&str>) -> Vec<&SessionEntry> {
        let start = match from_id {
            Some(id) => self.index.get(id, &self.entries),
            None => self.leaf,
        };
        start.map_or_else(Vec::new, |leaf| {
            self.path_indices(leaf)
                .into_iter()
                .map(|i| self.get(&self.entries[i]))
                .collect()
        })
    }

    /// Whether the active branch records a thinking level (holds a
    /// `thinking_level_change` entry). Reads nothing from the file.
    pub fn branch_has_thinking_level_change(&self) -> bool {
        self.leaf.is_some_and(|leaf| {
            self.path_indices(leaf).into_iter().any(|i| {
                matches!(
                    self.entries[i].path_entry(),
                    PathEntry::Entry(SessionEntry::ThinkingLevelChange(_))
                )
            })
        })
    }

    /// The time (ISO 8601) of the latest `compaction` entry on the active
    /// branch. Reads nothing from the file.
    pub fn latest_compaction_timestamp(&self) -> Option<&str> {
        let leaf = self.leaf?;
        self.path_indices(leaf)
            .into_iter()
            .rev()
            .find_map(|i| match self.entries[i].path_entry() {
                PathEntry::Entry(SessionEntry::Compaction(c)) => Some(c.timestamp.as_str()),
                _ => None,
            })
    }

    /// Positions of the entries from the root to `leaf` (inclusive), root
    /// first. Follows `parentId`; stops at a missing parent and never loops
    /// on a cycle.
    pub(super) fn path_indices(&self, leaf: usize) -> Vec<usize> {
        // With every id distinct (one index key per entry), a parent that is
        // the entry just before, as in nearly every session, is found
        // without hashing its id.
        let distinct = self.index.len() == self.entries.len();
        let mut path = Vec::new();
        let mut current = (leaf < self.entries.len()).then_some(leaf);
        while let Some(i) = current {
            path.push(i);
            if path.len() > self.entries.len() {
                tracing::warn!(
                    "session tree has a parentId cycle at entry {}",
                    self.entries[i].id()
                );
                break;
            }
            current = self.entries[i].parent_id().and_then(|parent| {
                let before = i
                    .checked_sub(1)
                    .filter(|&b| distinct && self.entries[b].id() == parent);
                before.or_else(|| self.index.get(parent, &self.entries))
            });
        }
        path.reverse();
        path
    }

    /// The plan of the active leaf's context and the path it was made from.
    fn plan_context(&self) -> Option<(ContextPlan, Vec<usize>)> {
        let path = self.path_indices(self.leaf?);
        let view: Vec<PathEntry<'_>> = path.iter().map(|&i| self.entries[i].path_entry()).collect();
        Some((ContextPlan::new(&view), path))
    }

    /// The context of the active leaf (its messages are copies).
    pub fn build_session_context(&self) -> SessionContext {
        match self.plan_context() {
            Some((plan, path)) => {
                let sources = Sources {
                    file: self.source.as_ref(),
                    loaded: &self.loaded,
                };
                plan.build(|p| self.entries[path[p]].context_message(sources))
            }
            None => SessionContext::empty(),
        }
    }

    /// The context of the active leaf, as [`Self::build_session_context`],
    /// but the messages read from the file are moved into it, not copied:
    /// what a resume does once, right after [`Self::open`]. When the
    /// transcript is a run of the file's messages (a linear session, with or
    /// without a compaction) their list becomes it as it is. Afterwards no
    /// message read from the file is kept (in the context or not): such an
    /// entry asked for is read again from the file.
    pub fn take_session_context(&mut self) -> SessionContext {
        let mut loaded = std::mem::take(&mut self.loaded);
        let context = match self.plan_context() {
            None => SessionContext::empty(),
            Some((plan, path)) => match self.loaded_run(plan.kept(), &path) {
                Some(run) => {
                    loaded.truncate(run.end);
                    loaded.drain(..run.start);
                    // In place: `Option<message>` is as large as a message.
                    let mut messages: Vec<_> = loaded.into_iter().map_while(|m| m).collect();
                    // The list was sized by the file's lines plus room for a
                    // run's first messages: give back what the entries that
                    // are not messages left (a large block shrinks in place),
                    // but keep that room, so that the agent's first appends
                    // do not copy the transcript (and a place for the
                    // compaction summary put in front, if any: the file's
                    // compaction line left one).
                    messages.shrink_to(messages.len() + 1 + RUN_ROOM);
                    plan.build_from(messages)
                }
                None => {
                    let file = self.source.as_ref();
                    let entries = &mut self.entries;
                    plan.build(|p| entries[path[p]].take_context_message(file, &mut loaded))
                }
            },
        };
        self.entries.iter_mut().for_each(Stored::unload);
        context
    }

    /// The loaded messages that are exactly the messages of the `kept`
    /// positions of `path`, in order, when they are.
    fn loaded_run(&self, kept: &[usize], path: &[usize]) -> Option<Range<usize>> {
        let mut run: Option<Range<usize>> = None;
        for &position in kept {
            let stored = &self.entries[path[position]];
            match (stored.slot(), &mut run) {
                (Some(slot), None) => run = Some(slot..slot + 1),
                (Some(slot), Some(run)) if run.end == slot => run.end += 1,
                (Some(_), Some(_)) => return None,
                (None, _) => {
                    let adds = stored.in_memory().is_none_or(adds_message);
                    if adds {
                        return None;
                    }
                }
            }
        }
        Some(run.unwrap_or(0..0))
    }

    /// The tree of all entries with resolved labels.
    pub fn tree(&self) -> SessionTree<'_> {
        SessionTree::build(
            &self.entries(),
            |id| self.index.get(id, &self.entries),
            &self.labels,
        )
    }

    /// The display name from the latest named `session_info`.
    pub fn session_name(&self) -> Option<&str> {
        // Only message entries are ever out of memory, so this reads nothing.
        self.entries
            .iter()
            .rev()
            .find_map(|stored| match stored.in_memory() {
                Some(SessionEntry::SessionInfo(info)) => {
                    info.name.as_deref().filter(|n| !n.is_empty())
                }
                _ => None,
            })
    }
}
