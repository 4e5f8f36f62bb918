//! A terminal emulator for tests (feature `testing`): `vt100` with a scrollback, plus what
//! the terminals pi runs in do and `vt100` leaves out:
//!
//! - **scroll on clear**: erasing the whole screen (`CSI 2 J`, or `CSI J` from the top-left
//!   corner) first scrolls what it shows into the scrollback, as tmux (`scroll-on-clear`, on by
//!   default) and VTE-based terminals do; a renderer that erases the screen under a frame leaves
//!   a stale copy of it in the scrollback, and tests see it;
//! - `CSI 3 J` empties the scrollback.
//!
//! Like `vt100`, it does not re-wrap lines on a resize (the resized rows are cut or padded).

use vt100::Parser;

/// The longest erase sequence the scanner has to see whole (`ESC [ 0 J`).
const LONGEST: usize = 4;

/// A terminal: screen, cursor and scrollback.
pub struct TestTerminal {
    parser: Parser,
    scrollback: usize,
    /// The end of the last input when it may be the start of an erase sequence.
    held: Vec<u8>,
}

/// What an erase sequence at some offset does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Erase {
    /// `CSI J` / `CSI 0 J`: below the cursor.
    Below,
    /// `CSI 2 J`: the screen.
    Screen,
    /// `CSI 3 J`: the scrollback.
    Scrollback,
}

fn erase_at(bytes: &[u8]) -> Option<(Erase, usize)> {
    match bytes {
        [0x1b, b'[', b'J', ..] => Some((Erase::Below, 3)),
        [0x1b, b'[', b'0', b'J', ..] => Some((Erase::Below, 4)),
        [0x1b, b'[', b'2', b'J', ..] => Some((Erase::Screen, 4)),
        [0x1b, b'[', b'3', b'J', ..] => Some((Erase::Scrollback, 4)),
        _ => None,
    }
}

impl TestTerminal {
    /// A `cols` x `rows` terminal keeping up to `scrollback` lines.
    pub fn new(rows: u16, cols: u16, scrollback: usize) -> Self {
        Self {
            parser: Parser::new(rows, cols, scrollback),
            scrollback,
            held: Vec::new(),
        }
    }

    /// The `vt100` parser (screen, cursor, modes).
    pub fn parser(&self) -> &Parser {
        &self.parser
    }

    /// Feeds output of the program.
    pub fn process(&mut self, bytes: &[u8]) {
        let mut data = std::mem::take(&mut self.held);
        data.extend_from_slice(bytes);
        let mut from = 0;
        let mut i = 0;
        while i < data.len() {
            if data[i] != 0x1b {
                i += 1;
                continue;
            }
            let rest = &data[i..];
            if rest.len() < LONGEST && erase_at(rest).is_none() && could_be_erase(rest) {
                // Wait for the rest of a sequence cut by the read.
                self.parser.process(&data[from..i]);
                self.held = rest.to_vec();
                return;
            }
            match erase_at(rest) {
                Some((erase, len)) => {
                    self.parser.process(&data[from..i]);
                    self.erase(erase);
                    self.parser.process(&data[i..i + len]);
                    i += len;
                    from = i;
                }
                None => i += 1,
            }
        }
        self.parser.process(&data[from..]);
    }

    fn erase(&mut self, erase: Erase) {
        let screen = self.parser.screen();
        match erase {
            Erase::Below if screen.cursor_position() != (0, 0) => {}
            Erase::Below | Erase::Screen => self.scroll_screen_into_history(),
            Erase::Scrollback => {
                let (rows, cols) = screen.size();
                let mut fresh = Parser::new(rows, cols, self.scrollback);
                fresh.process(&screen.state_formatted());
                *self.parser.screen_mut() = fresh.screen().clone();
            }
        }
    }

    /// Scrolls the screen's rows up to the last non-blank one into the scrollback (tmux's
    /// `grid_view_clear_history`), keeping the cursor where it was.
    fn scroll_screen_into_history(&mut self) {
        let screen = self.parser.screen();
        let (rows, cols) = screen.size();
        let used = screen
            .rows(0, cols)
            .enumerate()
            .filter(|(_, row)| !row.trim().is_empty())
            .map(|(i, _)| i + 1)
            .last()
            .unwrap_or(0);
        if used == 0 {
            return;
        }
        let (row, col) = screen.cursor_position();
        let mut seq = format!("\x1b[{rows};1H");
        seq.push_str(&"\n".repeat(used));
        seq.push_str(&format!("\x1b[{};{}H", row + 1, col + 1));
        self.parser.process(seq.as_bytes());
    }

    /// Resizes the terminal (rows are cut or padded, not re-wrapped).
    pub fn set_size(&mut self, rows: u16, cols: u16) {
        self.parser.screen_mut().set_size(rows, cols);
    }

    /// The visible rows, trailing spaces and trailing blank rows dropped.
    pub fn screen_rows(&self) -> Vec<String> {
        let screen = self.parser.screen();
        let (_, cols) = screen.size();
        let mut rows: Vec<String> = screen
            .rows(0, cols)
            .map(|r| r.trim_end().to_owned())
            .collect();
        while rows.last().is_some_and(String::is_empty) {
            rows.pop();
        }
        rows
    }

    /// The scrollback (oldest first) followed by the visible rows, trailing spaces and
    /// trailing blank rows dropped.
    pub fn history(&mut self) -> Vec<String> {
        let (_, cols) = self.parser.screen().size();
        self.parser.screen_mut().set_scrollback(usize::MAX);
        let depth = self.parser.screen().scrollback();
        let mut out = Vec::with_capacity(depth);
        for k in (1..=depth).rev() {
            self.parser.screen_mut().set_scrollback(k);
            let row = self
                .parser
                .screen()
                .rows(0, cols)
                .next()
                .unwrap_or_default();
            out.push(row.trim_end().to_owned());
        }
        self.parser.screen_mut().set_scrollback(0);
        out.extend(
            self.parser
                .screen()
                .rows(0, cols)
                .map(|r| r.trim_end().to_owned()),
        );
        while out.last().is_some_and(String::is_empty) {
            out.pop();
        }
        out
    }
}

/// Whether `bytes` (shorter than any erase sequence) may grow into one.
fn could_be_erase(bytes: &[u8]) -> bool {
    ["\x1b[J", "\x1b[0J", "\x1b[2J", "\x1b[3J"]
        .iter()
        .any(|seq| seq.as_bytes().starts_with(bytes))
}

#[cfg(test)]
mod tests {
    use super::TestTerminal;

    #[test]
    fn erasing_the_screen_from_the_top_scrolls_it_into_the_scrollback() {
        let mut t = TestTerminal::new(3, 10, 100);
        t.process(b"one\r\ntwo\r\nthree");
        t.process(b"\x1b[2A\r\x1b");
        t.process(b"[Jnew");
        assert_eq!(t.history(), vec!["one", "two", "three", "new"]);
        // Below the top row, `CSI J` only erases.
        t.process(b"\r\nx\r\ny\x1b[1A\r\x1b[J");
        assert_eq!(t.screen_rows(), vec!["new"]);
        t.process(b"\x1b[2J\x1b[H\x1b[3Jfresh");
        assert_eq!(t.history(), vec!["fresh"]);
    }
}
