//! Inline rendering: finished lines go to the terminal's scrollback once, the live region
//! below them is redrawn by line diff.
//!
//! The renderer never uses the alternate screen and never clears the scrollback. It keeps the
//! lines of the live region it drew last and, on each [`InlineRenderer::draw`], moves the
//! cursor (relatively) to each line that changed and rewrites only those (`CSI 2K` per line),
//! then clears what is left below when the region shrank. Lines committed with
//! [`InlineRenderer::commit`] are written on the next frame in place of the live region, which
//! is then redrawn below them: they scroll up into the terminal's own scrollback like any
//! printed output. Each frame is a single `write` wrapped in synchronized output (DEC 2026), so
//! the terminal never shows a half-drawn frame.
//!
//! **A live region taller than the screen is clipped at the top**: only its last `rows` lines
//! are drawn (the editor and footer stay visible). The clipped lines cannot be committed
//! because they may still change (a streaming answer re-wraps); they reach the scrollback when
//! the app commits their block.
//!
//! The renderer assumes it owns the cursor: the app prints nothing else while it runs and the
//! cursor starts at the beginning of an empty line.

use std::io::{self, Write};

use crate::text::{truncate_to_width, visible_width};

const SYNC_START: &str = "\x1b[?2026h";
const SYNC_END: &str = "\x1b[?2026l";
const CLEAR_LINE: &str = "\x1b[2K";
const CLEAR_BELOW: &str = "\x1b[J";
const RESET: &str = "\x1b[0m";

/// Writes committed lines into scrollback and diff-redraws the live region below them.
#[derive(Debug)]
pub struct InlineRenderer<W: Write> {
    out: W,
    cols: usize,
    rows: usize,
    /// The live-region lines currently on screen (already clipped and clamped).
    shown: Vec<String>,
    /// Row of the cursor, relative to the first live-region row.
    cursor_row: usize,
    /// Lines to write into scrollback on the next frame.
    pending: Vec<String>,
    /// Whether the terminal re-wraps long lines when it gets narrower (most modern terminals).
    reflow: bool,
    /// Wrap frames in synchronized output.
    sync: bool,
}

impl<W: Write> InlineRenderer<W> {
    /// A renderer for a terminal of `cols` x `rows`, writing to `out`.
    pub fn new(out: W, cols: u16, rows: u16) -> Self {
        Self {
            out,
            cols: usize::from(cols).max(1),
            rows: usize::from(rows).max(1),
            shown: Vec::new(),
            cursor_row: 0,
            pending: Vec::new(),
            reflow: true,
            sync: true,
        }
    }

    /// Whether the terminal re-wraps lines on a width change (default true); decides how many
    /// rows the old live region occupies after a narrowing resize.
    pub fn set_reflow(&mut self, reflow: bool) {
        self.reflow = reflow;
    }

    /// Turns synchronized output (DEC 2026) on or off (default on).
    pub fn set_synchronized(&mut self, sync: bool) {
        self.sync = sync;
    }

    /// The terminal width in columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The terminal height in rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The live-region lines on screen now.
    pub fn shown(&self) -> &[String] {
        &self.shown
    }

    /// The writer.
    pub fn writer(&self) -> &W {
        &self.out
    }

    /// The writer, mutably (tests drain it).
    pub fn writer_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// Queues finished lines for the scrollback. They are written once, above the live region,
    /// by the next [`draw`](Self::draw) (or [`finish`](Self::finish)), in the same write as
    /// that frame, and never redrawn.
    pub fn commit(&mut self, lines: &[String]) {
        self.pending.extend(lines.iter().cloned());
    }

    /// True when committed lines wait for the next frame.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    fn clamp(&self, line: &str) -> String {
        let mut s = if visible_width(line) > self.cols {
            truncate_to_width(line, self.cols, "")
        } else {
            line.to_owned()
        };
        if s.contains('\x1b') && !s.ends_with(RESET) {
            s.push_str(RESET);
        }
        s
    }

    /// Moves the cursor from the current live row to `row` (column 0), scrolling with CRLF
    /// when `row` is below the last row drawn.
    fn move_to(&mut self, buf: &mut String, row: usize) {
        if row < self.cursor_row {
            buf.push_str(&format!("\x1b[{}A", self.cursor_row - row));
        } else if row > self.cursor_row {
            let last = self.shown.len().saturating_sub(1).max(self.cursor_row);
            let down_existing = row.min(last).saturating_sub(self.cursor_row);
            if down_existing > 0 {
                buf.push_str(&format!("\x1b[{down_existing}B"));
            }
            for _ in self.cursor_row + down_existing..row {
                buf.push_str("\r\n");
            }
        }
        buf.push('\r');
        self.cursor_row = row;
    }

    /// Redraws the live region as `live` (changed lines only), first writing any committed
    /// lines above it. Lines wider than the terminal are cut; a region taller than the screen
    /// shows its last `rows` lines.
    pub fn draw(&mut self, live: &[String]) -> io::Result<()> {
        let skip = live.len().saturating_sub(self.rows);
        let next: Vec<String> = live[skip..].iter().map(|l| self.clamp(l)).collect();
        let mut buf = String::new();
        if !self.pending.is_empty() {
            // Replace the live region by the committed lines, then draw it anew below.
            self.move_to(&mut buf, 0);
            buf.push_str(CLEAR_BELOW);
            let pending = std::mem::take(&mut self.pending);
            for line in &pending {
                buf.push_str(&self.clamp(line));
                buf.push_str("\r\n");
            }
            self.shown.clear();
            self.cursor_row = 0;
        }
        let first = self
            .shown
            .iter()
            .zip(&next)
            .position(|(a, b)| a != b)
            .unwrap_or(self.shown.len().min(next.len()));
        if first == next.len() && next.len() == self.shown.len() {
            if !buf.is_empty() {
                self.write_frame(&buf)?;
            }
            return Ok(());
        }
        if next.is_empty() {
            self.move_to(&mut buf, 0);
            buf.push_str(CLEAR_BELOW);
        } else if first < next.len() {
            for (i, line) in next.iter().enumerate().skip(first) {
                // Unchanged rows are skipped: only what differs is written.
                if self.shown.get(i) == Some(line) {
                    continue;
                }
                self.move_to(&mut buf, i);
                buf.push_str(CLEAR_LINE);
                buf.push_str(line);
            }
            if next.len() < self.shown.len() {
                // The row below the new end still exists on screen: clear from there (clearing
                // from the end of a full-width line would erase its last cell).
                self.move_to(&mut buf, next.len());
                buf.push_str(CLEAR_BELOW);
            }
        } else {
            // Only shorter: the remaining lines are unchanged.
            self.move_to(&mut buf, next.len());
            buf.push_str(CLEAR_BELOW);
        }
        self.shown = next;
        self.write_frame(&buf)
    }

    /// Records a new terminal size and redraws the whole live region (the scrollback is left
    /// alone). `live` is the live region rendered for the new width.
    pub fn resize(&mut self, cols: u16, rows: u16, live: &[String]) -> io::Result<()> {
        let (cols, rows) = (usize::from(cols).max(1), usize::from(rows).max(1));
        // Rows the old region (up to the cursor) takes now: long lines re-wrap when the
        // terminal reflows on narrowing.
        let above: usize = self
            .shown
            .iter()
            .take(self.cursor_row)
            .map(|l| {
                if self.reflow {
                    visible_width(l).div_ceil(cols).max(1)
                } else {
                    1
                }
            })
            .sum();
        let cursor_line_extra = match self.shown.get(self.cursor_row) {
            Some(l) if self.reflow => visible_width(l).div_ceil(cols).max(1) - 1,
            _ => 0,
        };
        let up = (above + cursor_line_extra).min(rows.saturating_sub(1));
        let mut buf = String::new();
        if up > 0 {
            buf.push_str(&format!("\x1b[{up}A"));
        }
        buf.push('\r');
        buf.push_str(CLEAR_BELOW);
        self.cols = cols;
        self.rows = rows;
        self.shown.clear();
        self.cursor_row = 0;
        self.write_frame(&buf)?;
        self.draw(live)
    }

    /// Forgets the screen: clears it and its scrollback (`CSI 2J CSI H CSI 3J`), for the
    /// explicit full reprints (Ctrl+O / Ctrl+T). The app then commits everything again.
    pub fn clear_all(&mut self) -> io::Result<()> {
        self.shown.clear();
        self.cursor_row = 0;
        self.pending.clear();
        self.write_frame("\x1b[2J\x1b[H\x1b[3J")
    }

    /// Forgets what is on screen without writing (after a suspend or an external program
    /// drew over the terminal); the next draw starts at the cursor's line.
    pub fn forget(&mut self) {
        self.shown.clear();
        self.cursor_row = 0;
    }

    /// Writes pending commits and `live` one last time, then leaves the cursor on a fresh line
    /// below everything (for exit or suspend).
    pub fn finish(&mut self, live: &[String]) -> io::Result<()> {
        self.draw(live)?;
        let mut buf = String::new();
        if !self.shown.is_empty() {
            let last = self.shown.len() - 1;
            self.move_to(&mut buf, last);
            buf.push_str("\r\n");
        }
        self.shown.clear();
        self.cursor_row = 0;
        self.write_frame(&buf)
    }

    fn write_frame(&mut self, body: &str) -> io::Result<()> {
        if body.is_empty() {
            return Ok(());
        }
        let mut frame = String::with_capacity(body.len() + 16);
        if self.sync {
            frame.push_str(SYNC_START);
        }
        frame.push_str(body);
        if self.sync {
            frame.push_str(SYNC_END);
        }
        self.out.write_all(frame.as_bytes())?;
        self.out.flush()
    }
}
