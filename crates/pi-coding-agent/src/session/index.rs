//! Entries by id: a hash table of positions in the entry list.
//!
//! The ids live in the entries; the table holds only their positions (4
//! bytes a slot), hashed by the id at that position. A map keyed by a copy
//! of every id cost a heap string and 32 bytes a slot, about 1 MB for a
//! 20,000-entry session.

use std::hash::BuildHasher;

use hashbrown::HashTable;

use super::store::Stored;

/// Positions in a session's entry list by entry id. When ids repeat, the
/// id names the entry inserted last, as a map's `insert` would.
#[derive(Debug, Default)]
pub(crate) struct EntryIndex {
    table: HashTable<u32>,
    hasher: std::hash::RandomState,
}

impl EntryIndex {
    /// An empty index.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Forgets every entry.
    pub(crate) fn clear(&mut self) {
        self.table.clear();
    }

    /// Room for `additional` more entries.
    pub(crate) fn reserve(&mut self, additional: usize, entries: &[Stored]) {
        let hasher = &self.hasher;
        self.table
            .reserve(additional, |&at| hash_at(hasher, entries, at));
    }

    /// How many distinct ids it holds.
    pub(crate) fn len(&self) -> usize {
        self.table.len()
    }

    /// The position of the entry `id` in `entries`.
    pub(crate) fn get(&self, id: &str, entries: &[Stored]) -> Option<usize> {
        self.table
            .find(self.hasher.hash_one(id), |&at| {
                id_at(entries, at) == Some(id)
            })
            .map(|&at| at as usize)
    }

    /// Whether an entry has this id.
    pub(crate) fn contains(&self, id: &str, entries: &[Stored]) -> bool {
        self.get(id, entries).is_some()
    }

    /// Makes `id` name the entry at `at` (which `entries` need not hold
    /// yet: an entry about to be pushed). A session holds fewer than 2^32
    /// entries; one beyond that is not indexed.
    pub(crate) fn insert(&mut self, id: &str, at: usize, entries: &[Stored]) {
        let Ok(at) = u32::try_from(at) else {
            tracing::warn!(id, "a session of more than 2^32 entries: not indexed");
            return;
        };
        let hasher = &self.hasher;
        let hash = hasher.hash_one(id);
        match self.table.entry(
            hash,
            |&other| id_at(entries, other) == Some(id),
            |&other| hash_at(hasher, entries, other),
        ) {
            hashbrown::hash_table::Entry::Occupied(mut slot) => *slot.get_mut() = at,
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(at);
            }
        }
    }
}

/// The id of the entry at `at`.
fn id_at(entries: &[Stored], at: u32) -> Option<&str> {
    entries.get(at as usize).map(Stored::id)
}

/// The hash of the id at `at` (every position in the table is in `entries`
/// when the table grows).
fn hash_at(hasher: &std::hash::RandomState, entries: &[Stored], at: u32) -> u64 {
    hasher.hash_one(id_at(entries, at).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use pi_ai::ExtraFields;

    use super::EntryIndex;
    use crate::session::entry::{CustomEntry, SessionEntry};
    use crate::session::store::Stored;

    fn entry(id: &str) -> Stored {
        Stored::new(SessionEntry::Custom(CustomEntry {
            custom_type: "test".to_owned(),
            data: None,
            id: id.to_owned(),
            parent_id: None,
            timestamp: String::new(),
            extra: ExtraFields::new(),
        }))
    }

    /// Pushes an entry and indexes it, as the manager appends.
    fn push(index: &mut EntryIndex, entries: &mut Vec<Stored>, id: &str) {
        index.insert(id, entries.len(), entries);
        entries.push(entry(id));
    }

    #[test]
    fn finds_every_entry_as_the_table_grows() {
        let mut index = EntryIndex::new();
        let mut entries = Vec::new();
        let ids: Vec<String> = (0..5_000).map(|i| format!("{i:08x}")).collect();
        for id in &ids {
            push(&mut index, &mut entries, id);
        }
        assert_eq!(index.len(), ids.len());
        for (at, id) in ids.iter().enumerate() {
            assert_eq!(index.get(id, &entries), Some(at));
        }
        assert_eq!(index.get("missing", &entries), None);
        assert!(!index.contains("", &entries));
    }

    #[test]
    fn a_repeated_id_names_the_entry_inserted_last() {
        let mut index = EntryIndex::new();
        let mut entries = Vec::new();
        for id in ["a", "b", "a", "c"] {
            push(&mut index, &mut entries, id);
        }
        assert_eq!(index.len(), 3);
        assert_eq!(index.get("a", &entries), Some(2));
        assert_eq!(index.get("b", &entries), Some(1));
        index.clear();
        assert_eq!(index.get("a", &entries), None);
        index.reserve(entries.len(), &entries);
        for (at, stored) in entries.iter().enumerate() {
            index.insert(stored.id(), at, &entries);
        }
        assert_eq!(index.get("a", &entries), Some(2));
        assert_eq!(index.len(), 3);
    }
}
