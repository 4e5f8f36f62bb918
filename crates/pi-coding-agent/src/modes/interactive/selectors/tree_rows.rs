//! The session tree's rows (pi's `TreeList` layout): the described entries
//! ([`super::tree_items`]) filtered (filter mode, search, folds) and laid
//! out with pi's indentation, `├─ └─` connectors and `│` gutters. The walks
//! are iterative: a session is often one chain of thousands of entries.

use std::collections::{HashMap, HashSet};

use super::tree_items::Kind;
pub use super::tree_items::{Display, Filter, Item, build_items, format_tool_call};

/// A `│` column of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gutter {
    /// Indent level of the column.
    pub position: usize,
    /// `│` (true) or a blank (false).
    pub show: bool,
}

/// A visible row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Position of the item.
    pub item: usize,
    /// Indent level.
    pub indent: usize,
    /// Draws `├─` / `└─`.
    pub connector: bool,
    /// Last of its siblings.
    pub is_last: bool,
    /// Gutter columns.
    pub gutters: Vec<Gutter>,
    /// A root among several (no connector drawn).
    pub virtual_root_child: bool,
}

/// The tree's visible rows and the maps to move around them.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// Rows in display order.
    pub rows: Vec<Row>,
    /// True when several roots are visible.
    pub multiple_roots: bool,
    /// Visible parent of each visible item.
    pub parent: HashMap<usize, Option<usize>>,
    /// Visible children of each visible item (`None`: the roots).
    pub children: HashMap<Option<usize>, Vec<usize>>,
}

/// What decides the layout.
#[derive(Debug, Clone)]
pub struct View<'a> {
    /// The filter.
    pub filter: Filter,
    /// Lower-case search tokens (all must match).
    pub tokens: &'a [String],
    /// Folded items.
    pub folded: &'a HashSet<usize>,
    /// The current leaf.
    pub leaf: Option<usize>,
}

fn passes(item: &Item, at: usize, view: &View<'_>) -> bool {
    if item.kind == Kind::SilentAssistant && view.leaf != Some(at) {
        return false;
    }
    let ok = match view.filter {
        Filter::UserOnly => item.kind == Kind::User,
        Filter::NoTools => !matches!(item.kind, Kind::Bookkeeping | Kind::ToolResult),
        Filter::LabeledOnly => item.label.is_some(),
        Filter::All => true,
        Filter::Default => item.kind != Kind::Bookkeeping,
    };
    ok && view.tokens.iter().all(|t| item.search.contains(t.as_str()))
}

/// Items in display order: depth first, the branch holding the leaf first.
pub fn display_order(items: &[Item], leaf: Option<usize>) -> Vec<usize> {
    let mut holds_leaf = vec![false; items.len()];
    let mut at = leaf;
    while let Some(i) = at {
        if std::mem::replace(&mut holds_leaf[i], true) {
            break;
        }
        at = items[i].parent;
    }
    let ordered = |list: &[usize]| -> Vec<usize> {
        let (mut first, rest): (Vec<usize>, Vec<usize>) =
            list.iter().partition(|&&c| holds_leaf[c]);
        first.extend(rest);
        first
    };
    let roots: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].parent.is_none())
        .collect();
    let mut order = Vec::with_capacity(items.len());
    let mut stack: Vec<usize> = ordered(&roots).into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(ordered(&items[i].children).into_iter().rev());
    }
    order
}

/// Lays out the items of `order` that `view` shows.
pub fn layout(items: &[Item], order: &[usize], view: &View<'_>) -> Layout {
    let mut hidden_by_fold = vec![false; items.len()];
    let mut visible = vec![false; items.len()];
    let mut nearest: Vec<Option<usize>> = vec![None; items.len()];
    for &i in order {
        if let Some(p) = items[i].parent {
            hidden_by_fold[i] = hidden_by_fold[p] || view.folded.contains(&p);
            nearest[i] = if visible[p] { Some(p) } else { nearest[p] };
        }
        visible[i] = !hidden_by_fold[i] && passes(&items[i], i, view);
    }
    let mut out = Layout::default();
    for &i in order.iter().filter(|&&i| visible[i]) {
        out.parent.insert(i, nearest[i]);
        out.children.entry(nearest[i]).or_default().push(i);
    }
    let roots = out.children.get(&None).cloned().unwrap_or_default();
    let multiple = roots.len() > 1;
    out.multiple_roots = multiple;
    // (item, indent, just branched, connector, last, gutters, virtual root child)
    type Frame = (usize, usize, bool, bool, bool, Vec<Gutter>, bool);
    let mut stack: Vec<Frame> = roots
        .iter()
        .enumerate()
        .rev()
        .map(|(n, &r)| {
            (
                r,
                usize::from(multiple),
                multiple,
                multiple,
                n + 1 == roots.len(),
                Vec::new(),
                multiple,
            )
        })
        .collect();
    while let Some((i, indent, branched, connector, is_last, gutters, virtual_root)) = stack.pop() {
        let children = out.children.get(&Some(i)).cloned().unwrap_or_default();
        let several = children.len() > 1;
        let child_indent = if several || (branched && indent > 0) {
            indent + 1
        } else {
            indent
        };
        let shown = connector && !virtual_root;
        let display_indent = if multiple {
            indent.saturating_sub(1)
        } else {
            indent
        };
        let child_gutters = if shown {
            let mut g = gutters.clone();
            g.push(Gutter {
                position: display_indent.saturating_sub(1),
                show: !is_last,
            });
            g
        } else {
            gutters.clone()
        };
        for (n, &c) in children.iter().enumerate().rev() {
            stack.push((
                c,
                child_indent,
                several,
                several,
                n + 1 == children.len(),
                child_gutters.clone(),
                false,
            ));
        }
        out.rows.push(Row {
            item: i,
            indent,
            connector,
            is_last,
            gutters,
            virtual_root_child: virtual_root,
        });
    }
    out
}

impl Layout {
    /// True when the item can fold: it has visible children and is a root
    /// or the start of a branch.
    pub fn foldable(&self, item: usize) -> bool {
        if self.children.get(&Some(item)).is_none_or(Vec::is_empty) {
            return false;
        }
        match self.parent.get(&item).copied().flatten() {
            None => true,
            Some(p) => self.children.get(&Some(p)).is_some_and(|s| s.len() > 1),
        }
    }

    /// The row of the item, or of its nearest shown ancestor; else the last row.
    pub fn nearest_row(&self, items: &[Item], item: Option<usize>) -> usize {
        let rows: HashMap<usize, usize> = self
            .rows
            .iter()
            .enumerate()
            .map(|(n, r)| (r.item, n))
            .collect();
        let mut at = item;
        let mut steps = 0;
        while let Some(i) = at {
            if let Some(&row) = rows.get(&i) {
                return row;
            }
            at = items[i].parent;
            steps += 1;
            if steps > items.len() {
                break;
            }
        }
        self.rows.len().saturating_sub(1)
    }

    /// The row Ctrl+Left / Ctrl+Right jumps to from `row`: up to the start
    /// of the enclosing branch, or down to the next branch point.
    pub fn branch_jump(&self, row: usize, up: bool) -> usize {
        let Some(start) = self.rows.get(row).map(|r| r.item) else {
            return row;
        };
        let rows: HashMap<usize, usize> = self
            .rows
            .iter()
            .enumerate()
            .map(|(n, r)| (r.item, n))
            .collect();
        let row_of = |i: usize| rows.get(&i).copied().unwrap_or(row);
        let mut at = start;
        if !up {
            loop {
                let children = self.children.get(&Some(at)).map_or(&[][..], Vec::as_slice);
                match children {
                    [] => return row_of(at),
                    [only] => at = *only,
                    [first, ..] => return row_of(*first),
                }
            }
        }
        loop {
            let Some(parent) = self.parent.get(&at).copied().flatten() else {
                return row_of(at);
            };
            let siblings = self.children.get(&Some(parent)).map_or(0, Vec::len);
            if siblings > 1 && row_of(at) < row {
                return row_of(at);
            }
            at = parent;
        }
    }
}

#[cfg(test)]
#[path = "tree_rows_tests.rs"]
mod tests;
