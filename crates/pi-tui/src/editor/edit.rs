//! Text changes: typing, deletion, kills and yanks, undo, paste, horizontal moves.

use super::segment::{Seg, segments};
use super::{Buf, Editor, Jump, LastAction, normalize};

/// A paste with more lines or characters than this becomes a marker.
const LARGE_PASTE_LINES: usize = 10;
const LARGE_PASTE_CHARS: usize = 1000;

impl Editor {
    fn segs(&self) -> Vec<Seg<'_>> {
        segments(self.cur_line(), &self.paste_ids)
    }

    /// Byte offset of the unit boundary before the cursor.
    fn prev_boundary(&self) -> usize {
        self.segs()
            .iter()
            .rev()
            .find(|s| s.start < self.buf.col)
            .map_or(0, |s| s.start)
    }

    /// Byte offset of the unit boundary after the cursor.
    fn next_boundary(&self) -> usize {
        self.segs()
            .iter()
            .find(|s| s.start >= self.buf.col)
            .map_or(self.cur_line().len(), Seg::end)
    }

    pub(super) fn set_col(&mut self, col: usize) {
        self.buf.col = col;
        self.preferred_col = None;
    }

    fn replace_line(&mut self, text: String) {
        let line = self.buf.line;
        self.buf.lines[line] = text;
    }

    pub(super) fn insert_char(&mut self, c: char) {
        self.history_index = None;
        if c.is_whitespace() || self.last_action != Some(LastAction::TypeWord) {
            self.push_undo();
        }
        self.last_action = Some(LastAction::TypeWord);
        let col = self.buf.col;
        let line = self.buf.line;
        self.buf.lines[line].insert(col, c);
        self.set_col(col + c.len_utf8());
        self.after_typing(c);
    }

    /// Inserts (already normalised) text at the cursor; no undo bookkeeping.
    pub(super) fn insert_raw(&mut self, text: &str) {
        let line = self.cur_line();
        let (before, after) = line.split_at(self.buf.col);
        let (before, after) = (before.to_owned(), after.to_owned());
        let parts: Vec<&str> = text.split('\n').collect();
        if parts.len() == 1 {
            self.replace_line(format!("{before}{text}{after}"));
            self.set_col(before.len() + text.len());
            return;
        }
        let last = parts.len() - 1;
        let mut new_lines: Vec<String> = Vec::with_capacity(parts.len());
        new_lines.push(format!("{before}{}", parts[0]));
        new_lines.extend(parts[1..last].iter().map(|s| (*s).to_owned()));
        new_lines.push(format!("{}{after}", parts[last]));
        let at = self.buf.line;
        self.buf.lines.splice(at..=at, new_lines);
        self.buf.line = at + last;
        self.set_col(parts[last].len());
    }

    pub(super) fn paste(&mut self, text: &str) {
        self.close_completion();
        self.history_index = None;
        self.last_action = None;
        self.push_undo();
        let mut text = normalize(&decode_csi_u_controls(text));
        if text.is_empty() {
            return;
        }
        if text.starts_with(['/', '~', '.'])
            && self.cur_line()[..self.buf.col]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            text.insert(0, ' ');
        }
        // A trailing newline does not start another line (pi counts it: +21 for 20 lines).
        let lines = text.strip_suffix('\n').unwrap_or(&text).split('\n').count();
        let chars = text.chars().count();
        if lines > LARGE_PASTE_LINES || chars > LARGE_PASTE_CHARS {
            self.paste_counter += 1;
            let id = self.paste_counter;
            let marker = if lines > LARGE_PASTE_LINES {
                format!("[paste #{id} +{lines} lines]")
            } else {
                format!("[paste #{id} {chars} chars]")
            };
            self.pastes.insert(id, text);
            self.paste_ids.insert(id);
            self.insert_raw(&marker);
            return;
        }
        self.insert_raw(&text);
    }

    pub(super) fn new_line(&mut self) {
        self.close_completion();
        self.history_index = None;
        self.last_action = None;
        self.push_undo();
        self.insert_raw("\n");
    }

    /// Takes the text for Enter / Alt+Enter: expanded, trimmed; the editor is reset.
    pub(super) fn take_submission(&mut self) -> String {
        self.close_completion();
        let text = self.text().trim().to_owned();
        self.buf = Buf::default();
        self.pastes.clear();
        self.paste_ids.clear();
        self.paste_counter = 0;
        self.history_index = None;
        self.scroll = 0;
        self.undo.clear();
        self.last_action = None;
        self.preferred_col = None;
        text
    }

    pub(super) fn backspace(&mut self) {
        self.history_index = None;
        self.last_action = None;
        if self.buf.col > 0 {
            self.push_undo();
            let from = self.prev_boundary();
            let mut line = self.cur_line().to_owned();
            line.replace_range(from..self.buf.col, "");
            self.replace_line(line);
            self.set_col(from);
        } else if self.buf.line > 0 {
            self.push_undo();
            self.join_with_previous();
        } else {
            return;
        }
        self.after_deletion();
    }

    pub(super) fn delete_forward(&mut self) {
        self.history_index = None;
        self.last_action = None;
        if self.buf.col < self.cur_line().len() {
            self.push_undo();
            let to = self.next_boundary();
            let mut line = self.cur_line().to_owned();
            line.replace_range(self.buf.col..to, "");
            self.replace_line(line);
        } else if self.buf.line + 1 < self.buf.lines.len() {
            self.push_undo();
            self.join_with_next();
        } else {
            return;
        }
        self.after_deletion();
    }

    fn join_with_previous(&mut self) {
        let cur = self.buf.lines.remove(self.buf.line);
        self.buf.line -= 1;
        let prev_len = self.cur_line().len();
        let line = self.buf.line;
        self.buf.lines[line].push_str(&cur);
        self.set_col(prev_len);
    }

    fn join_with_next(&mut self) {
        let next = self.buf.lines.remove(self.buf.line + 1);
        let line = self.buf.line;
        self.buf.lines[line].push_str(&next);
    }

    fn kill(&mut self, text: &str, prepend: bool) {
        let accumulate = self.last_action == Some(LastAction::Kill);
        self.kill_ring.push(text, prepend, accumulate);
        self.last_action = Some(LastAction::Kill);
    }

    pub(super) fn kill_to_line_end(&mut self) {
        self.history_index = None;
        let col = self.buf.col;
        if col < self.cur_line().len() {
            self.push_undo();
            let killed = self.cur_line()[col..].to_owned();
            self.kill(&killed, false);
            let keep = self.cur_line()[..col].to_owned();
            self.replace_line(keep);
        } else if self.buf.line + 1 < self.buf.lines.len() {
            self.push_undo();
            self.kill("\n", false);
            self.join_with_next();
        }
    }

    pub(super) fn kill_to_line_start(&mut self) {
        self.history_index = None;
        let col = self.buf.col;
        if col > 0 {
            self.push_undo();
            let killed = self.cur_line()[..col].to_owned();
            self.kill(&killed, true);
            let keep = self.cur_line()[col..].to_owned();
            self.replace_line(keep);
            self.set_col(0);
        } else if self.buf.line > 0 {
            self.push_undo();
            self.kill("\n", true);
            self.join_with_previous();
        }
    }

    pub(super) fn kill_word_backward(&mut self) {
        self.history_index = None;
        let col = self.buf.col;
        if col == 0 {
            if self.buf.line > 0 {
                self.push_undo();
                self.kill("\n", true);
                self.join_with_previous();
            }
            return;
        }
        self.push_undo();
        let from = self.word_start_before(col);
        let killed = self.cur_line()[from..col].to_owned();
        self.kill(&killed, true);
        let mut line = self.cur_line().to_owned();
        line.replace_range(from..col, "");
        self.replace_line(line);
        self.set_col(from);
    }

    pub(super) fn kill_word_forward(&mut self) {
        self.history_index = None;
        let col = self.buf.col;
        if col >= self.cur_line().len() {
            if self.buf.line + 1 < self.buf.lines.len() {
                self.push_undo();
                self.kill("\n", false);
                self.join_with_next();
            }
            return;
        }
        self.push_undo();
        let to = self.word_end_after(col);
        let killed = self.cur_line()[col..to].to_owned();
        self.kill(&killed, false);
        let mut line = self.cur_line().to_owned();
        line.replace_range(col..to, "");
        self.replace_line(line);
    }

    pub(super) fn yank(&mut self) {
        let Some(text) = self.kill_ring.peek().map(str::to_owned) else {
            return;
        };
        self.push_undo();
        self.history_index = None;
        self.insert_raw(&text);
        self.last_action = Some(LastAction::Yank);
    }

    pub(super) fn yank_pop(&mut self) {
        if self.last_action != Some(LastAction::Yank) || self.kill_ring.len() <= 1 {
            return;
        }
        self.push_undo();
        // Remove the text the last yank inserted (it ends at the cursor).
        if let Some(prev) = self.kill_ring.peek().map(str::to_owned) {
            let parts: Vec<&str> = prev.split('\n').collect();
            let first_len = parts[0].len();
            let start_line = self.buf.line + 1 - parts.len();
            let start_col = if parts.len() == 1 {
                self.buf.col.saturating_sub(first_len)
            } else {
                self.buf.lines[start_line].len().saturating_sub(first_len)
            };
            let after = self.cur_line()[self.buf.col..].to_owned();
            let before = self.buf.lines[start_line][..start_col].to_owned();
            self.buf
                .lines
                .splice(start_line..=self.buf.line, [format!("{before}{after}")]);
            self.buf.line = start_line;
            self.set_col(start_col);
        }
        self.kill_ring.rotate();
        if let Some(text) = self.kill_ring.peek().map(str::to_owned) {
            self.insert_raw(&text);
        }
        self.last_action = Some(LastAction::Yank);
    }

    pub(super) fn undo(&mut self) {
        self.history_index = None;
        self.close_completion();
        if let Some(state) = self.undo.pop() {
            self.buf = state;
            self.last_action = None;
            self.preferred_col = None;
        }
    }

    /// Start of the word before `col` (spaces, then a punctuation run or a word run).
    fn word_start_before(&self, col: usize) -> usize {
        let segs = self.segs();
        let mut i = segs
            .iter()
            .position(|s| s.start >= col)
            .unwrap_or(segs.len());
        while i > 0 && segs[i - 1].is_space() {
            i -= 1;
        }
        if i > 0 {
            let last = segs[i - 1];
            if last.marker {
                i -= 1;
            } else if last.is_punct() {
                while i > 0 && segs[i - 1].is_punct() {
                    i -= 1;
                }
            } else {
                while i > 0
                    && !segs[i - 1].is_space()
                    && !segs[i - 1].is_punct()
                    && !segs[i - 1].marker
                {
                    i -= 1;
                }
            }
        }
        segs.get(i).map_or(self.cur_line().len(), |s| s.start)
    }

    /// End of the word after `col`.
    fn word_end_after(&self, col: usize) -> usize {
        let segs = self.segs();
        let mut i = segs
            .iter()
            .position(|s| s.start >= col)
            .unwrap_or(segs.len());
        while i < segs.len() && segs[i].is_space() {
            i += 1;
        }
        if i < segs.len() {
            if segs[i].marker {
                i += 1;
            } else if segs[i].is_punct() {
                while i < segs.len() && segs[i].is_punct() {
                    i += 1;
                }
            } else {
                while i < segs.len()
                    && !segs[i].is_space()
                    && !segs[i].is_punct()
                    && !segs[i].marker
                {
                    i += 1;
                }
            }
        }
        segs.get(i).map_or(self.cur_line().len(), |s| s.start)
    }

    pub(super) fn move_word_backward(&mut self) {
        self.last_action = None;
        if self.buf.col == 0 {
            if self.buf.line > 0 {
                self.buf.line -= 1;
                let len = self.cur_line().len();
                self.set_col(len);
            }
            return;
        }
        let to = self.word_start_before(self.buf.col);
        self.set_col(to);
    }

    pub(super) fn move_word_forward(&mut self) {
        self.last_action = None;
        if self.buf.col >= self.cur_line().len() {
            if self.buf.line + 1 < self.buf.lines.len() {
                self.buf.line += 1;
                self.set_col(0);
            }
            return;
        }
        let to = self.word_end_after(self.buf.col);
        self.set_col(to);
    }

    pub(super) fn move_line_start(&mut self) {
        self.last_action = None;
        self.set_col(0);
    }

    pub(super) fn move_line_end(&mut self) {
        self.last_action = None;
        let len = self.cur_line().len();
        self.set_col(len);
    }

    pub(super) fn move_left(&mut self) {
        self.last_action = None;
        if self.buf.col > 0 {
            let to = self.prev_boundary();
            self.set_col(to);
        } else if self.buf.line > 0 {
            self.buf.line -= 1;
            let len = self.cur_line().len();
            self.set_col(len);
        }
    }

    pub(super) fn move_right(&mut self) {
        self.last_action = None;
        if self.buf.col < self.cur_line().len() {
            let to = self.next_boundary();
            self.set_col(to);
        } else if self.buf.line + 1 < self.buf.lines.len() {
            self.buf.line += 1;
            self.set_col(0);
        }
    }

    pub(super) fn jump_to_char(&mut self, c: char, dir: Jump) {
        self.last_action = None;
        let (line, col) = (self.buf.line, self.buf.col);
        let found = match dir {
            Jump::Forward => (line..self.buf.lines.len()).find_map(|i| {
                let l = &self.buf.lines[i];
                let from = if i == line {
                    l[col..]
                        .chars()
                        .next()
                        .map_or(l.len(), |ch| col + ch.len_utf8())
                } else {
                    0
                };
                l[from..].find(c).map(|at| (i, from + at))
            }),
            Jump::Backward => (0..=line).rev().find_map(|i| {
                let l = &self.buf.lines[i];
                let to = if i == line { col } else { l.len() };
                l[..to].rfind(c).map(|at| (i, at))
            }),
        };
        if let Some((l, at)) = found {
            self.buf.line = l;
            self.set_col(at);
        }
    }
}

/// Terminals that re-encode control bytes in a paste as CSI-u Ctrl+letter get them back.
fn decode_csi_u_controls(text: &str) -> String {
    if !text.contains("\x1b[") {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        let decoded = tail[digits..]
            .starts_with(";5u")
            .then(|| tail[..digits].parse::<u32>().ok())
            .flatten()
            .and_then(|cp| match cp {
                97..=122 => char::from_u32(cp - 96),
                65..=90 => char::from_u32(cp - 64),
                _ => None,
            });
        match decoded {
            Some(ch) => {
                out.push(ch);
                rest = &tail[digits + 3..];
            }
            None => {
                out.push_str("\x1b[");
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}
