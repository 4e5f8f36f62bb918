//! The editor's small stacks: kill ring, undo stack and prompt history.

use std::collections::VecDeque;

/// Most history entries kept (pi keeps 100).
pub const HISTORY_LIMIT: usize = 100;
/// Most undo snapshots kept.
const UNDO_LIMIT: usize = 500;

/// Emacs kill ring: kills push entries, consecutive kills accumulate into one.
#[derive(Debug, Clone, Default)]
pub(crate) struct KillRing {
    ring: Vec<String>,
}

impl KillRing {
    /// Records killed `text`; with `accumulate` it joins the last entry (before it for
    /// backward kills, after it for forward ones).
    pub(crate) fn push(&mut self, text: &str, prepend: bool, accumulate: bool) {
        if text.is_empty() {
            return;
        }
        match self.ring.last_mut() {
            Some(last) if accumulate => {
                if prepend {
                    last.insert_str(0, text);
                } else {
                    last.push_str(text);
                }
            }
            _ => self.ring.push(text.to_owned()),
        }
    }

    /// The latest entry.
    pub(crate) fn peek(&self) -> Option<&str> {
        self.ring.last().map(String::as_str)
    }

    /// Moves the latest entry to the back (yank-pop).
    pub(crate) fn rotate(&mut self) {
        if self.ring.len() > 1
            && let Some(last) = self.ring.pop()
        {
            self.ring.insert(0, last);
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.ring.len()
    }
}

/// Snapshots to undo to (deep copies of the editor state).
#[derive(Debug, Clone)]
pub(crate) struct UndoStack<T> {
    stack: VecDeque<T>,
}

impl<T> Default for UndoStack<T> {
    fn default() -> Self {
        Self {
            stack: VecDeque::new(),
        }
    }
}

impl<T> UndoStack<T> {
    pub(crate) fn push(&mut self, state: T) {
        if self.stack.len() == UNDO_LIMIT {
            self.stack.pop_front();
        }
        self.stack.push_back(state);
    }

    pub(crate) fn pop(&mut self) -> Option<T> {
        self.stack.pop_back()
    }

    pub(crate) fn clear(&mut self) {
        self.stack.clear();
    }
}

/// Submitted prompts, newest first, without consecutive duplicates.
#[derive(Debug, Clone, Default)]
pub(crate) struct History {
    entries: VecDeque<String>,
}

impl History {
    pub(crate) fn add(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() || self.entries.front().is_some_and(|e| e == text) {
            return;
        }
        self.entries.push_front(text.to_owned());
        self.entries.truncate(HISTORY_LIMIT);
    }

    pub(crate) fn get(&self, index: usize) -> Option<&str> {
        self.entries.get(index).map(String::as_str)
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kills_accumulate_and_rotate() {
        let mut k = KillRing::default();
        k.push("world", false, false);
        k.push("!", false, true);
        k.push("hello ", true, true);
        assert_eq!(k.peek(), Some("hello world!"));
        k.push("other", false, false);
        k.rotate();
        assert_eq!(k.peek(), Some("hello world!"));
        assert_eq!(k.len(), 2);
    }

    #[test]
    fn history_skips_consecutive_duplicates_and_caps() {
        let mut h = History::default();
        h.add("a");
        h.add(" a ");
        h.add("");
        h.add("b");
        h.add("a");
        assert_eq!(
            (h.get(0), h.get(1), h.get(2), h.len()),
            (Some("a"), Some("b"), Some("a"), 3)
        );
        for i in 0..200 {
            h.add(&i.to_string());
        }
        assert_eq!(h.len(), HISTORY_LIMIT);
        assert_eq!(h.get(0), Some("199"));
    }
}
