//! Vertical movement over visual (wrapped) rows with a sticky column, paging and history.

use super::Editor;
use super::segment::{segments, wrap_chunks};
use crate::text::visible_width;

/// One visual row: bytes `start..end` of logical line `line`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct VisualLine {
    pub line: usize,
    pub start: usize,
    pub end: usize,
    /// Whether this is the last row of its logical line (the cursor may sit at its end).
    pub last: bool,
}

impl Editor {
    /// Every visual row for the layout width of the last render.
    pub(super) fn visual_lines(&self, width: usize) -> Vec<VisualLine> {
        let mut out = Vec::with_capacity(self.buf.lines.len());
        for (i, l) in self.buf.lines.iter().enumerate() {
            let chunks = wrap_chunks(l, width, &self.paste_ids);
            let n = chunks.len();
            out.extend(chunks.into_iter().enumerate().map(|(k, c)| VisualLine {
                line: i,
                start: c.start,
                end: c.end,
                last: k + 1 == n,
            }));
        }
        out
    }

    /// Index of the visual row holding (line, col).
    pub(super) fn visual_index(vls: &[VisualLine], line: usize, col: usize) -> usize {
        vls.iter()
            .position(|v| {
                v.line == line && col >= v.start && (col < v.end || (v.last && col == v.end))
            })
            .unwrap_or(vls.len().saturating_sub(1))
    }

    fn current_visual(&self) -> (Vec<VisualLine>, usize) {
        let vls = self.visual_lines(self.layout_width);
        let i = Self::visual_index(&vls, self.buf.line, self.buf.col);
        (vls, i)
    }

    pub(super) fn on_first_visual_line(&self) -> bool {
        self.current_visual().1 == 0
    }

    pub(super) fn on_last_visual_line(&self) -> bool {
        let (vls, i) = self.current_visual();
        i + 1 >= vls.len()
    }

    /// Display cells from the row start to the cursor.
    fn col_in_row(&self, v: &VisualLine, col: usize) -> usize {
        visible_width(&self.buf.lines[v.line][v.start..col.clamp(v.start, v.end)])
    }

    /// Widest cursor column in a row (a non-last row cannot hold the cursor at its end).
    fn row_max(&self, v: &VisualLine) -> usize {
        let w = visible_width(&self.buf.lines[v.line][v.start..v.end]);
        if v.last { w } else { w.saturating_sub(1) }
    }

    /// Moves to visual row `target`, keeping pi's sticky-column rules.
    fn move_to_visual(&mut self, vls: &[VisualLine], from: usize, target: usize) {
        let (Some(cur), Some(tgt)) = (vls.get(from).copied(), vls.get(target).copied()) else {
            return;
        };
        let current = self.col_in_row(&cur, self.buf.col);
        let source_max = self.row_max(&cur);
        let target_max = self.row_max(&tgt);
        let in_middle = current < source_max;
        let too_short = target_max < current;
        let col = match self.preferred_col {
            Some(pref) if !in_middle => {
                if too_short || target_max < pref {
                    target_max
                } else {
                    self.preferred_col = None;
                    pref
                }
            }
            _ => {
                if too_short {
                    self.preferred_col = Some(current);
                    target_max
                } else {
                    self.preferred_col = None;
                    current
                }
            }
        };
        // The byte offset in the target row at (or before) display column `col`; an atomic
        // marker is never entered.
        let line = &self.buf.lines[tgt.line];
        let segs = segments(line, &self.paste_ids);
        let in_row: Vec<_> = segs
            .iter()
            .filter(|s| s.start >= tgt.start && s.start < tgt.end)
            .collect();
        let mut at = tgt.start;
        let mut w = 0;
        for s in &in_row {
            let sw = s.width();
            if w + sw > col {
                break;
            }
            w += sw;
            at = s.end();
        }
        if !tgt.last && at >= tgt.end {
            at = in_row.last().map_or(tgt.start, |s| s.start);
        }
        // Never inside a marker (one that started on an earlier row snaps to its start).
        if let Some(s) = segs
            .iter()
            .find(|s| s.marker && s.start < at && at < s.end())
        {
            at = s.start;
        }
        self.buf.line = tgt.line;
        self.buf.col = at;
    }

    fn move_vertical(&mut self, delta: isize) {
        self.last_action = None;
        let (vls, i) = self.current_visual();
        let target = i as isize + delta;
        if target >= 0 && (target as usize) < vls.len() {
            self.move_to_visual(&vls, i, target as usize);
        }
    }

    pub(super) fn key_up(&mut self) {
        if self.is_empty() || (self.history_index.is_some() && self.on_first_visual_line()) {
            self.navigate_history(-1);
        } else if self.on_first_visual_line() {
            self.move_line_start();
        } else {
            self.move_vertical(-1);
        }
    }

    pub(super) fn key_down(&mut self) {
        if self.history_index.is_some() && self.on_last_visual_line() {
            self.navigate_history(1);
        } else if self.on_last_visual_line() {
            self.move_line_end();
        } else {
            self.move_vertical(1);
        }
    }

    pub(super) fn page(&mut self, direction: isize) {
        self.last_action = None;
        let (vls, i) = self.current_visual();
        let size = self.page_rows.max(5) as isize;
        let target = (i as isize + direction * size).clamp(0, vls.len() as isize - 1);
        self.move_to_visual(&vls, i, target as usize);
    }

    /// Up (-1) goes to older entries, Down (1) to newer ones and finally an empty editor.
    pub(super) fn navigate_history(&mut self, direction: isize) {
        self.last_action = None;
        if self.history.len() == 0 {
            return;
        }
        let current = self.history_index.map_or(-1, |i| i as isize);
        let next = current - direction;
        if next < -1 || next >= self.history.len() as isize {
            return;
        }
        if current == -1 && next >= 0 {
            self.push_undo();
        }
        if next == -1 {
            self.history_index = None;
            self.set_text_internal("");
        } else {
            self.history_index = Some(next as usize);
            let text = self
                .history
                .get(next as usize)
                .unwrap_or_default()
                .to_owned();
            self.set_text_internal(&text);
        }
    }
}
