//! ANSI-aware text measurement, truncation, wrapping and sanitising.
//!
//! Widths count terminal cells: escape sequences are zero-width, text is split into grapheme
//! clusters and each cluster is 0, 1 or 2 cells wide (East-Asian wide and emoji are 2).

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

use crate::ansi::{Piece, SgrState, pieces};

/// Spaces a tab expands to in [`sanitize`].
pub const TAB_SPACES: &str = "    ";

/// Cells taken by one grapheme cluster (0 for control characters, at most 2).
pub fn grapheme_width(g: &str) -> usize {
    let Some(first) = g.chars().next() else {
        return 0;
    };
    if first.is_control() {
        return 0;
    }
    let w = UnicodeWidthStr::width(g);
    if g.contains('\u{fe0f}') {
        return 2;
    }
    w.min(2)
}

fn text_width(t: &str) -> usize {
    if t.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return t.len();
    }
    t.graphemes(true).map(grapheme_width).sum()
}

/// Cells `s` takes on screen, ignoring escape sequences.
pub fn visible_width(s: &str) -> usize {
    pieces(s)
        .map(|p| match p {
            Piece::Text(t) => text_width(t),
            Piece::Escape(_) => 0,
        })
        .sum()
}

/// Removes all escape sequences from `s`.
pub fn strip_ansi(s: &str) -> String {
    crate::ansi::strip(s)
}

/// Cuts `s` to at most `width` cells, ending with `ellipsis` when something was cut.
///
/// Escape sequences are kept, and any style open at the cut is reset before the ellipsis, so
/// the result never leaks styles. A string that fits is returned unchanged.
pub fn truncate_to_width(s: &str, width: usize, ellipsis: &str) -> String {
    if visible_width(s) <= width {
        return s.to_owned();
    }
    let ellipsis_w = visible_width(ellipsis);
    let (target, ellipsis) = if ellipsis_w <= width {
        (width - ellipsis_w, ellipsis)
    } else {
        (width, "")
    };
    let mut out = String::with_capacity(s.len().min(target * 4 + 16));
    let mut state = SgrState::default();
    let mut used = 0;
    'outer: for p in pieces(s) {
        match p {
            Piece::Escape(e) => {
                state.apply(e);
                out.push_str(e);
            }
            Piece::Text(t) => {
                for g in t.graphemes(true) {
                    let w = grapheme_width(g);
                    if used + w > target {
                        break 'outer;
                    }
                    used += w;
                    out.push_str(g);
                }
            }
        }
    }
    out.push_str(state.close());
    out.push_str(ellipsis);
    out
}

/// Pads `s` with spaces to exactly `width` cells (cutting it first when it is wider).
pub fn pad_to_width(s: &str, width: usize) -> String {
    let w = visible_width(s);
    match w.cmp(&width) {
        std::cmp::Ordering::Equal => s.to_owned(),
        std::cmp::Ordering::Greater => pad_to_width(&truncate_to_width(s, width, ""), width),
        std::cmp::Ordering::Less => {
            let mut out = String::with_capacity(s.len() + width - w);
            out.push_str(s);
            out.extend(std::iter::repeat_n(' ', width - w));
            out
        }
    }
}

/// Makes untrusted text (tool output, file content) safe to print.
///
/// Escape sequences and control characters are removed, CRLF and lone CR become `\n`, tabs
/// become [`TAB_SPACES`]; `\n` is kept.
pub fn sanitize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for p in pieces(s) {
        let Piece::Text(t) = p else { continue };
        let mut chars = t.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\n' => out.push('\n'),
                '\r' => {
                    if chars.peek() != Some(&'\n') {
                        out.push('\n');
                    }
                }
                '\t' => out.push_str(TAB_SPACES),
                c if c.is_control() => {}
                c => out.push(c),
            }
        }
    }
    out
}

/// [`sanitize`] for raw bytes: invalid UTF-8 becomes U+FFFD first.
pub fn sanitize_bytes(b: &[u8]) -> String {
    sanitize(&String::from_utf8_lossy(b))
}

/// Word-wraps `s` to lines of at most `width` cells (ANSI-aware).
///
/// `\n` starts a new line; words longer than a line are broken; spaces at a wrap point are
/// dropped. Styles open at the end of a line are reset there and re-opened on the next line,
/// so every line stands alone. Always returns at least one line.
pub fn wrap(s: &str, width: usize) -> Vec<String> {
    let mut w = Wrapper::new(width.max(1));
    for p in pieces(s) {
        match p {
            Piece::Escape(e) => w.escape(e),
            Piece::Text(t) => {
                for g in t.graphemes(true) {
                    w.grapheme(g);
                }
            }
        }
    }
    w.finish()
}

struct Wrapper {
    width: usize,
    lines: Vec<String>,
    line: String,
    line_w: usize,
    /// Style in force at the end of `line`.
    state: SgrState,
    /// Current word (not yet placed) and its width; escapes inside it are included.
    word: String,
    word_w: usize,
    word_state: SgrState,
    /// Spaces (and escapes between them) seen after the last word.
    spaces: String,
    spaces_w: usize,
    /// Whether this row is the first row of a logical line (leading spaces kept).
    first_row: bool,
}

impl Wrapper {
    fn new(width: usize) -> Self {
        Self {
            width,
            lines: Vec::new(),
            line: String::new(),
            line_w: 0,
            state: SgrState::default(),
            word: String::new(),
            word_w: 0,
            word_state: SgrState::default(),
            spaces: String::new(),
            spaces_w: 0,
            first_row: true,
        }
    }

    fn escape(&mut self, e: &str) {
        if self.word.is_empty() && self.spaces.is_empty() {
            self.line.push_str(e);
            self.state.apply(e);
            self.word_state = self.state.clone();
        } else if self.word.is_empty() {
            self.spaces.push_str(e);
            self.word_state.apply(e);
        } else {
            self.word.push_str(e);
            self.word_state.apply(e);
        }
    }

    fn grapheme(&mut self, g: &str) {
        if g == "\n" || g == "\r\n" {
            self.flush_word();
            self.spaces.clear();
            self.spaces_w = 0;
            self.break_line();
            self.first_row = true;
            return;
        }
        let w = grapheme_width(g);
        if g == " " || g == "\t" {
            self.flush_word();
            if self.line_w == 0 && self.first_row {
                // Leading indentation of a logical line is content.
                if self.line_w < self.width {
                    self.line.push(' ');
                    self.line_w += 1;
                }
                return;
            }
            self.spaces.push(' ');
            self.spaces_w += 1;
            return;
        }
        if w > self.width {
            // Cannot fit even alone (wide char at width 1): show a narrow stand-in.
            self.push_word_grapheme("\u{2026}", 1);
            return;
        }
        self.push_word_grapheme(g, w);
    }

    fn push_word_grapheme(&mut self, g: &str, w: usize) {
        // A word that already fills a whole line is broken right here.
        if self.word_w + w > self.width {
            self.flush_word();
        }
        self.word.push_str(g);
        self.word_w += w;
    }

    fn flush_word(&mut self) {
        if self.word.is_empty() {
            return;
        }
        let needed = self.spaces_w + self.word_w;
        if self.line_w + needed > self.width && self.line_w > 0 {
            self.break_line();
            self.first_row = false;
            // Escapes among the dropped spaces still apply.
            let escapes: String = pieces(&self.spaces)
                .filter_map(|p| match p {
                    Piece::Escape(e) => Some(e),
                    Piece::Text(_) => None,
                })
                .collect();
            self.line.push_str(&escapes);
        } else {
            self.line.push_str(&self.spaces);
            self.line_w += self.spaces_w;
        }
        self.spaces.clear();
        self.spaces_w = 0;
        self.line.push_str(&self.word);
        self.line_w += self.word_w;
        self.state = self.word_state.clone();
        self.word.clear();
        self.word_w = 0;
    }

    fn break_line(&mut self) {
        let mut line = std::mem::take(&mut self.line);
        line.push_str(self.state.close());
        self.lines.push(line);
        self.line = self.state.open();
        self.line_w = 0;
    }

    fn finish(mut self) -> Vec<String> {
        self.flush_word();
        let spaces = std::mem::take(&mut self.spaces);
        for p in pieces(&spaces) {
            if let Piece::Escape(e) = p {
                self.line.push_str(e);
                self.state.apply(e);
            }
        }
        let mut line = self.line;
        line.push_str(self.state.close());
        self.lines.push(line);
        self.lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn widths_of_wide_and_combining_text() {
        assert_eq!(visible_width("abc"), 3);
        assert_eq!(visible_width("\x1b[31mabc\x1b[0m"), 3);
        assert_eq!(visible_width("日本"), 4);
        assert_eq!(visible_width("e\u{301}"), 1);
        assert_eq!(visible_width("👍"), 2);
        assert_eq!(visible_width("👨‍👩‍👧"), 2);
        assert_eq!(visible_width("\x1b]8;;http://x\x07link\x1b]8;;\x07"), 4);
    }

    #[test]
    fn truncation_is_ansi_aware_and_resets() {
        assert_eq!(truncate_to_width("hello", 5, "…"), "hello");
        assert_eq!(truncate_to_width("hello world", 6, "..."), "hel...");
        assert_eq!(
            truncate_to_width("\x1b[1mhello world\x1b[22m", 6, "…"),
            "\x1b[1mhello\x1b[0m…"
        );
        assert_eq!(truncate_to_width("日本語", 3, ""), "日");
        assert_eq!(truncate_to_width("abc", 0, "…"), "");
        assert_eq!(
            visible_width(&truncate_to_width("日本語テキスト", 5, "…")),
            5
        );
    }

    #[test]
    fn padding_fills_and_clamps() {
        assert_eq!(pad_to_width("ab", 4), "ab  ");
        assert_eq!(pad_to_width("abcdef", 4), "abcd");
        assert_eq!(visible_width(&pad_to_width("日本語", 4)), 4);
    }

    #[test]
    fn sanitize_strips_escapes_and_controls() {
        assert_eq!(
            sanitize("a\x1b[31mb\x1b[0m\r\nc\rd\te\x07\x00f"),
            "ab\nc\nd    ef"
        );
        assert_eq!(sanitize_bytes(b"ok\xff!"), "ok\u{fffd}!");
    }

    #[test]
    fn wraps_words_and_breaks_long_ones() {
        assert_eq!(
            wrap("hello brave new world", 11),
            vec!["hello brave", "new world"]
        );
        assert_eq!(wrap("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap("a\n\nb", 10), vec!["a", "", "b"]);
        assert_eq!(wrap("", 10), vec![""]);
        assert_eq!(wrap("  indented text", 20), vec!["  indented text"]);
    }

    #[test]
    fn wrap_reopens_styles_on_continuation_lines() {
        let lines = wrap("\x1b[1mbold words here\x1b[22m plain", 10);
        assert_eq!(
            lines,
            vec!["\x1b[1mbold words\x1b[0m", "\x1b[1mhere\x1b[22m plain"]
        );
    }

    #[test]
    fn wrap_never_exceeds_width() {
        let s = "日本語のテキスト wide 👍👍👍 mixed\x1b[31m red text \x1b[39m done";
        for w in 1..30 {
            for line in wrap(s, w) {
                assert!(visible_width(&line) <= w, "{line:?} at {w}");
            }
        }
    }
}
