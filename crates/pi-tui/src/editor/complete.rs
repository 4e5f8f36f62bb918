//! Autocomplete: when to ask the provider, the dropdown keys and applying a completion.

use crossterm::event::KeyEvent;

use super::autocomplete::{CompletionItem, CompletionRequest, CompletionTrigger, Suggestions};
use super::{Completion, Editor, EditorAction};
use crate::select::{SelectItem, SelectList};

/// Whether the text before the cursor ends in an `@` (or `#`) token: `(^|\s)[@#]\S*$`.
fn in_symbol_context(before: &str) -> bool {
    let token_start = before.rfind(char::is_whitespace).map_or(0, |i| {
        i + before[i..].chars().next().map_or(1, char::len_utf8)
    });
    let token = &before[token_start..];
    token.starts_with('@') || token.starts_with('#')
}

impl Editor {
    fn before_cursor(&self) -> &str {
        &self.cur_line()[..self.buf.col]
    }

    /// `/` commands only complete on the first line.
    fn in_slash_context(&self) -> bool {
        self.buf.line == 0 && self.before_cursor().trim_start().starts_with('/')
    }

    fn at_message_start(&self) -> bool {
        let t = self.before_cursor().trim();
        self.buf.line == 0 && (t.is_empty() || t == "/")
    }

    pub(super) fn close_completion(&mut self) {
        self.completion = None;
    }

    /// After a typed character: open, refine or leave the dropdown.
    pub(super) fn after_typing(&mut self, c: char) {
        if self.completion.is_some() {
            self.refresh_completion();
            return;
        }
        let before = self.before_cursor();
        let trigger = if c == '/' {
            self.at_message_start()
        } else if c == '@' || c == '#' {
            let mut chars = before.chars().rev();
            chars.next();
            matches!(chars.next(), None | Some(' ') | Some('\t'))
        } else if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
            self.in_slash_context() || in_symbol_context(before)
        } else {
            false
        };
        if trigger {
            self.request(CompletionTrigger::Typing, false);
        }
    }

    /// After a deletion: refine the dropdown, or reopen it inside a completable token.
    pub(super) fn after_deletion(&mut self) {
        if self.completion.is_some() {
            self.refresh_completion();
        } else if self.in_slash_context() || in_symbol_context(self.before_cursor()) {
            self.request(CompletionTrigger::Typing, false);
        }
    }

    fn refresh_completion(&mut self) {
        let forced = self.completion.as_ref().is_some_and(|c| c.forced);
        let trigger = if forced {
            CompletionTrigger::Tab
        } else {
            CompletionTrigger::Typing
        };
        self.request(trigger, false);
    }

    /// Tab without a dropdown: complete a command name, otherwise force path completion
    /// (a single match is applied at once).
    pub(super) fn tab_completion(&mut self) {
        if self.provider.is_none() {
            return;
        }
        let before = self.before_cursor().trim_start();
        if self.in_slash_context() && !before.contains(' ') {
            self.request(CompletionTrigger::Typing, false);
        } else {
            self.request(CompletionTrigger::Tab, true);
        }
    }

    fn request(&mut self, trigger: CompletionTrigger, explicit_tab: bool) {
        let Some(provider) = self.provider.as_mut() else {
            return;
        };
        let request = CompletionRequest {
            lines: &self.buf.lines,
            line: self.buf.line,
            col: self.buf.col,
            trigger,
        };
        let suggestions = provider.suggest(&request);
        let Some(Suggestions { prefix, items }) = suggestions.filter(|s| !s.items.is_empty())
        else {
            self.close_completion();
            return;
        };
        if explicit_tab && items.len() == 1 {
            self.push_undo();
            self.last_action = None;
            self.apply_completion(&prefix, &items[0]);
            self.close_completion();
            return;
        }
        let best = best_match(&items, &prefix);
        let select_items = items
            .into_iter()
            .map(|i| {
                let mut s = SelectItem::new(i.value).with_label(i.label);
                s.description = i.description;
                s
            })
            .collect();
        let mut list = SelectList::new(self.theme.clone(), select_items, self.max_dropdown);
        if prefix.starts_with('/') {
            list.set_column_bounds(12, 32);
        }
        if let Some(i) = best {
            list.set_selected(i);
        }
        self.completion = Some(Completion {
            list,
            prefix,
            forced: trigger == CompletionTrigger::Tab,
        });
    }

    /// Replaces the prefix before the cursor with the item's value.
    fn apply_completion(&mut self, prefix: &str, item: &CompletionItem) {
        let col = self.buf.col;
        let start = if self.before_cursor().ends_with(prefix) {
            col - prefix.len()
        } else {
            col
        };
        let mut line = self.cur_line().to_owned();
        line.replace_range(start..col, &item.value);
        let l = self.buf.line;
        self.buf.lines[l] = line;
        self.set_col(start + item.value.len());
    }

    fn apply_selected(&mut self) -> Option<String> {
        let c = self.completion.take()?;
        let sel = c.list.selected()?;
        let item = CompletionItem {
            value: sel.value.clone(),
            label: sel.label.clone(),
            description: sel.description.clone(),
        };
        self.push_undo();
        self.last_action = None;
        self.apply_completion(&c.prefix, &item);
        Some(c.prefix)
    }

    /// Keys while the dropdown is open; `None` lets the key through to normal editing.
    pub(super) fn completion_key(&mut self, key: &KeyEvent) -> Option<EditorAction> {
        let kb = std::sync::Arc::clone(&self.keys);
        let c = self.completion.as_mut()?;
        if kb.matches(key, "tui.select.cancel") && !kb.matches(key, "tui.input.copy") {
            self.close_completion();
            return Some(EditorAction::Handled);
        }
        if kb.matches(key, "tui.select.up") {
            c.list.up();
            return Some(EditorAction::Handled);
        }
        if kb.matches(key, "tui.select.down") {
            c.list.down();
            return Some(EditorAction::Handled);
        }
        if kb.matches(key, "tui.input.tab") {
            self.apply_selected();
            return Some(EditorAction::Handled);
        }
        if kb.matches(key, "tui.select.confirm") {
            return match self.apply_selected() {
                // A command completion is applied and submitted at once.
                Some(prefix) if prefix.starts_with('/') => {
                    Some(EditorAction::Submit(self.take_submission()))
                }
                Some(_) => Some(EditorAction::Handled),
                None => None,
            };
        }
        None
    }

    /// The open dropdown, for rendering.
    pub(super) fn completion_list(&mut self) -> Option<&mut SelectList> {
        self.completion.as_mut().map(|c| &mut c.list)
    }
}

/// An exact value match, else the first value starting with the prefix.
fn best_match(items: &[CompletionItem], prefix: &str) -> Option<usize> {
    if prefix.is_empty() {
        return None;
    }
    items
        .iter()
        .position(|i| i.value == prefix)
        .or_else(|| items.iter().position(|i| i.value.starts_with(prefix)))
}
