//! The active branch as a pass over it reads it: what each entry is known
//! to be without reading it, and each entry read on its own, never kept.
//!
//! [`SessionManager::branch_path`] gives every entry of the branch at once,
//! and a message entry read from the file is kept once asked for; a long
//! session's compaction would hold all of them. A [`BranchWalk`] hands out
//! one entry at a time instead, leaving the session as it was.

use std::borrow::Cow;

use super::SessionManager;
use super::entry::SessionEntry;
use super::store::{MessageKind, Stored};

/// What an entry of a branch is, known without reading it again.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shape<'a> {
    /// An entry in memory.
    Entry(&'a SessionEntry),
    /// A message entry whose message is in the file only.
    Message(MessageKind),
}

impl<'a> Shape<'a> {
    /// The kind of message of a message entry (`None` for other entries).
    pub(crate) fn message_kind(self) -> Option<MessageKind> {
        match self {
            Self::Entry(SessionEntry::Message(e)) => Some(MessageKind::of(&e.message)),
            Self::Entry(_) => None,
            Self::Message(kind) => Some(kind),
        }
    }

    /// The entry, when it is in memory.
    pub(crate) fn entry(self) -> Option<&'a SessionEntry> {
        match self {
            Self::Entry(entry) => Some(entry),
            Self::Message(_) => None,
        }
    }
}

/// The entries from the root to the active leaf, read one at a time.
#[derive(Debug)]
pub struct BranchWalk<'a> {
    session: &'a SessionManager,
    /// Positions in the session's entries, root first.
    path: Vec<usize>,
}

impl SessionManager {
    /// The active branch (root first) for a pass over its entries that
    /// keeps none of them: see [`BranchWalk`].
    pub fn branch_walk(&self) -> BranchWalk<'_> {
        let path = self
            .leaf
            .map_or_else(Vec::new, |leaf| self.path_indices(leaf));
        BranchWalk {
            session: self,
            path,
        }
    }

    /// How many message entries read from the file are kept in memory
    /// (read again and cached).
    #[cfg(test)]
    pub(crate) fn cached_read_entries(&self) -> usize {
        self.entries.iter().filter(|s| s.is_cached_read()).count()
    }

    /// How many message entries are known by their line only, their
    /// message neither loaded nor kept (outlines, and messages handed out).
    #[cfg(test)]
    pub(crate) fn line_only_entries(&self) -> usize {
        self.entries
            .iter()
            .filter(|s| s.in_memory().is_none() && s.slot().is_none())
            .count()
    }
}

impl BranchWalk<'_> {
    fn stored(&self, position: usize) -> &Stored {
        &self.session.entries[self.path[position]]
    }

    /// The number of entries on the branch.
    pub fn len(&self) -> usize {
        self.path.len()
    }

    /// True when the branch has no entries.
    pub fn is_empty(&self) -> bool {
        self.path.is_empty()
    }

    /// The id of the entry at `position` (root first).
    pub fn id(&self, position: usize) -> &str {
        self.stored(position).id()
    }

    /// What the entry at `position` is, without reading it.
    pub(crate) fn shape(&self, position: usize) -> Shape<'_> {
        self.stored(position).shape()
    }

    /// The entry at `position`: borrowed when in memory, else read again
    /// from the file and not kept.
    pub fn entry(&self, position: usize) -> Cow<'_, SessionEntry> {
        self.stored(position)
            .read_uncached(self.session.source.as_ref())
    }

    /// The length in bytes of the file line of the entry at `position`,
    /// when it is not in memory (a size hint for what is made of it).
    pub fn line_len(&self, position: usize) -> Option<usize> {
        self.stored(position).line_len()
    }
}
