//! The session as a tree, flat and index-based so that deep sessions (one
//! long chain of 100k entries) need no recursion to build or drop.

use std::collections::HashMap;

use super::entry::SessionEntry;
use crate::messages::iso_to_millis;

/// One entry of a [`SessionTree`].
#[derive(Debug, Clone, PartialEq)]
pub struct TreeNode<'a> {
    /// The entry.
    pub entry: &'a SessionEntry,
    /// Positions (in [`SessionTree::nodes`]) of its children, oldest first.
    pub children: Vec<usize>,
    /// Its resolved label.
    pub label: Option<&'a str>,
}

/// Every entry of a session arranged as a tree. `nodes[i]` is entry `i` in
/// append order. Roots are entries without a parent, whose parent is
/// missing (orphans) or who name themselves as parent.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionTree<'a> {
    /// Positions of the roots, in append order.
    pub roots: Vec<usize>,
    /// One node per entry, in append order.
    pub nodes: Vec<TreeNode<'a>>,
}

impl<'a> SessionTree<'a> {
    /// Builds the tree, `index` giving the position of an entry by id;
    /// children are sorted by timestamp (stable).
    pub fn build(
        entries: &[&'a SessionEntry],
        index: impl Fn(&str) -> Option<usize>,
        labels: &'a HashMap<String, String>,
    ) -> Self {
        let mut nodes: Vec<TreeNode<'a>> = entries
            .iter()
            .map(|&entry| TreeNode {
                entry,
                children: Vec::new(),
                label: labels.get(entry.id()).map(String::as_str),
            })
            .collect();
        let mut roots = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let parent = entry
                .parent_id()
                .filter(|p| *p != entry.id())
                .and_then(&index);
            match parent {
                Some(p) if p != i => nodes[p].children.push(i),
                _ => roots.push(i),
            }
        }
        for node in &mut nodes {
            if node.children.len() > 1 {
                node.children
                    .sort_by_key(|&c| iso_to_millis(entries[c].timestamp()));
            }
        }
        Self { roots, nodes }
    }

    /// The node of the entry at position `i`.
    pub fn node(&self, i: usize) -> Option<&TreeNode<'a>> {
        self.nodes.get(i)
    }
}
