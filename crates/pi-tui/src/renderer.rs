//! Inline rendering: finished lines go to the terminal's scrollback once, the live region
//! below them is redrawn by line diff.
//!
//! The renderer never uses the alternate screen. It keeps the lines of the live region it drew
//! last and, on each [`InlineRenderer::draw`], moves the cursor (relatively) to each line that
//! changed and rewrites only those (`CSI 2K` per line), then clears what is left below when the
//! region shrank. Lines committed with [`InlineRenderer::commit`] become scrollback:
//!
//! - when they are the lines the live region shows at its top (an answer committed as it
//!   scrolls off, or a finished block that was drawn live), nothing is written: the region
//!   just starts below them, and they scroll up into the terminal's scrollback like any
//!   printed output as the region grows;
//! - otherwise they are written over the live region, which is then drawn anew below them.
//!
//! Each frame is a single `write` wrapped in synchronized output (DEC 2026), so the terminal
//! never shows a half-drawn frame.
//!
//! **The whole screen is never erased from its top-left corner** (`CSI J` there): tmux and
//! VTE-based terminals first scroll what the screen shows into the scrollback, which would leave
//! a stale copy of the live region there. Rows are cleared one by one instead.
//!
//! **A live region taller than the screen is clipped at the top**: only its last `rows` lines
//! are drawn (the editor and footer stay visible). The app commits the clipped lines that can no
//! longer change before they scroll off, so they reach the scrollback in order while the region
//! streams.
//!
//! A size change, like an explicit [`InlineRenderer::clear_all`], clears the screen and the
//! scrollback (`CSI 2J CSI H CSI 3J`, as pi does) in the next frame; the app then commits its
//! whole transcript again, laid out for the new width.
//!
//! The renderer assumes it owns the cursor: the app prints nothing else while it runs and the
//! cursor starts at the beginning of an empty line.

use std::io::{self, Write};

use crate::image::kitty;
use crate::text::{truncate_to_width, visible_width};

const SYNC_START: &str = "\x1b[?2026h";
const SYNC_END: &str = "\x1b[?2026l";
const CLEAR_LINE: &str = "\x1b[2K";
const CLEAR_BELOW: &str = "\x1b[J";
const RESET: &str = "\x1b[0m";
const SHOW_CURSOR: &str = "\x1b[?25h";
const HIDE_CURSOR: &str = "\x1b[?25l";
/// Where a focused component puts the cursor (pi's `CURSOR_MARKER`, an APC sequence terminals
/// ignore): the renderer takes it out of the line and moves the terminal's (hidden) cursor
/// there, so an IME's candidate window opens at the text cursor.
pub const CURSOR_MARKER: &str = "\x1b_pi:c\x07";

/// Clear the screen, home the cursor, clear the scrollback (pi's full redraw).
const CLEAR_ALL: &str = "\x1b[2J\x1b[H\x1b[3J";

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
    /// The next frame starts by clearing the screen and the scrollback.
    clear: bool,
    /// Where the cursor was put for the cursor marker (row, column) in the last frame.
    marker: Option<(usize, usize)>,
    /// Wrap frames in synchronized output.
    sync: bool,
    /// A kitty image was drawn since the last full clear.
    kitty_drawn: bool,
    /// Show the terminal's cursor at the cursor marker (pi's `showHardwareCursor`).
    show_cursor: bool,
    /// The cursor was last made visible (`CSI ?25h`) by this renderer.
    cursor_visible: bool,
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
            clear: false,
            marker: None,
            sync: true,
            kitty_drawn: false,
            show_cursor: false,
            cursor_visible: false,
        }
    }

    /// Shows the terminal's cursor where the focused component puts its cursor marker
    /// (pi's `showHardwareCursor`; default off: the cursor is moved there hidden, for an
    /// IME). Without a marker the cursor is hidden either way. Takes effect on the next draw.
    pub fn set_show_cursor(&mut self, show: bool) {
        self.show_cursor = show;
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

    /// Clears the shown rows from `row` down. From the region's first row (which may be the
    /// screen's top-left corner) each row is cleared on its own, never with one `CSI J` there.
    fn clear_from(&mut self, buf: &mut String, row: usize) {
        if row > 0 {
            self.move_to(buf, row);
            buf.push_str(CLEAR_BELOW);
            return;
        }
        for r in 0..self.shown.len() {
            self.move_to(buf, r);
            buf.push_str(CLEAR_LINE);
        }
        self.move_to(buf, 0);
    }

    /// Writes the pending commits: re-bases the region below them when they are what its top
    /// rows show, else writes them over the region (which is drawn anew after them).
    fn write_pending(&mut self, buf: &mut String) {
        let pending: Vec<String> = std::mem::take(&mut self.pending)
            .iter()
            .map(|l| self.clamp(l))
            .collect();
        let k = pending.len();
        if k <= self.shown.len() && self.shown[..k] == pending[..] {
            // Already on screen: the region now starts below them.
            if self.cursor_row < k {
                self.move_to(buf, k);
            }
            self.shown.drain(..k);
            self.cursor_row -= k;
            return;
        }
        self.move_to(buf, 0);
        for line in &pending {
            buf.push_str(CLEAR_LINE);
            buf.push_str(line);
            buf.push_str("\r\n");
        }
        // Below the written lines (never the screen's first row): the old region's rest.
        buf.push_str(CLEAR_BELOW);
        self.shown.clear();
        self.cursor_row = 0;
    }

    /// Redraws the live region as `live` (changed lines only), first writing any committed
    /// lines above it. Lines wider than the terminal are cut; a region taller than the screen
    /// shows its last `rows` lines.
    pub fn draw(&mut self, live: &[String]) -> io::Result<()> {
        let skip = live.len().saturating_sub(self.rows);
        let mut marker = None;
        let next: Vec<String> = live[skip..]
            .iter()
            .enumerate()
            .map(|(row, l)| match l.find(CURSOR_MARKER) {
                Some(at) => {
                    let col = visible_width(&l[..at]).min(self.cols - 1);
                    marker = marker.or(Some((row, col)));
                    let mut line = l.clone();
                    line.replace_range(at..at + CURSOR_MARKER.len(), "");
                    self.clamp(&line)
                }
                None => self.clamp(l),
            })
            .collect();
        let mut buf = String::new();
        if std::mem::take(&mut self.clear) {
            if std::mem::take(&mut self.kitty_drawn) {
                buf.push_str(kitty::delete_all());
            }
            buf.push_str(CLEAR_ALL);
            self.shown.clear();
            self.cursor_row = 0;
            self.marker = None;
        }
        self.delete_gone_images(&mut buf, &next);
        if !self.pending.is_empty() {
            self.write_pending(&mut buf);
        }
        let first = self
            .shown
            .iter()
            .zip(&next)
            .position(|(a, b)| a != b)
            .unwrap_or(self.shown.len().min(next.len()));
        if first == next.len() && next.len() == self.shown.len() {
            self.place_cursor(&mut buf, marker);
            return self.write_frame(&buf);
        }
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
            self.clear_from(&mut buf, next.len());
        }
        self.shown = next;
        self.place_cursor(&mut buf, marker);
        self.write_frame(&buf)
    }

    /// Deletes the kitty images the live region showed that neither `next` nor the pending
    /// commits draw again (text written over an image does not erase it).
    fn delete_gone_images(&mut self, buf: &mut String, next: &[String]) {
        let drawn = |lines: &[String]| -> Vec<u32> {
            lines
                .iter()
                .filter(|l| l.contains(kitty::PREFIX))
                .flat_map(|l| kitty::image_ids(l))
                .collect()
        };
        let kept: Vec<u32> = drawn(next)
            .into_iter()
            .chain(drawn(&self.pending))
            .collect();
        if !kept.is_empty() {
            self.kitty_drawn = true;
        }
        for id in drawn(&self.shown) {
            if !kept.contains(&id) {
                buf.push_str(&kitty::delete(id));
            }
        }
    }

    /// Moves the cursor to the marker's place when anything was written or the place changed.
    /// With [`set_show_cursor`](Self::set_show_cursor), the cursor is shown there, and hidden
    /// again when there is no marker (or the setting is turned off).
    fn place_cursor(&mut self, buf: &mut String, marker: Option<(usize, usize)>) {
        if let Some((row, col)) = marker
            && (!buf.is_empty() || self.marker != marker)
        {
            self.move_to(buf, row);
            buf.push_str(&format!("\x1b[{}G", col + 1));
        }
        self.marker = marker;
        let visible = self.show_cursor && marker.is_some();
        if visible != self.cursor_visible {
            buf.push_str(if visible { SHOW_CURSOR } else { HIDE_CURSOR });
            self.cursor_visible = visible;
        }
    }

    /// Writes `raw` (another program's output: text, escape sequences) above the live region,
    /// after any pending commits, so it scrolls into the scrollback like printed output; the
    /// next [`draw`](Self::draw) draws the whole live region again below it. Bare `\n` become
    /// `\r\n` (the terminal is in raw mode); text left without a final newline gets one.
    pub fn interject(&mut self, raw: &str) -> io::Result<()> {
        let mut buf = String::new();
        if !self.pending.is_empty() {
            self.write_pending(&mut buf);
        }
        self.move_to(&mut buf, 0);
        buf.push('\r');
        buf.push_str(CLEAR_BELOW);
        let mut previous = '\0';
        for c in raw.chars() {
            if c == '\n' && previous != '\r' {
                buf.push('\r');
            }
            buf.push(c);
            previous = c;
        }
        let last_line = raw.rsplit('\n').next().unwrap_or_default();
        if visible_width(last_line) > 0 {
            buf.push_str("\r\n");
        } else if !last_line.is_empty() {
            // Escape sequences only (a notification): back to the line's start.
            buf.push('\r');
        }
        buf.push_str(RESET);
        self.shown.clear();
        self.cursor_row = 0;
        self.marker = None;
        self.write_frame(&buf)
    }

    /// Records a new terminal size. The next frame clears the screen and the scrollback, as
    /// pi does: the terminal has re-wrapped (or cut) what it showed, so the app commits its
    /// transcript again for the new width (see the module documentation).
    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.cols = usize::from(cols).max(1);
        self.rows = usize::from(rows).max(1);
        self.clear_all();
    }

    /// Forgets the screen: the next frame clears it and its scrollback (`CSI 2J CSI H CSI 3J`)
    /// before anything else, for the full reprints (a resize, Ctrl+O, Ctrl+T). Lines committed
    /// before are dropped: the app commits everything again.
    pub fn clear_all(&mut self) {
        self.clear = true;
        self.pending.clear();
    }

    /// Forgets what is on screen without writing (after a suspend or an external program
    /// drew over the terminal); the next draw starts at the cursor's line.
    pub fn forget(&mut self) {
        self.shown.clear();
        self.cursor_row = 0;
        self.marker = None;
        // The terminal was handed back with its cursor hidden again.
        self.cursor_visible = false;
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
