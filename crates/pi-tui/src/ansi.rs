//! Splitting styled strings into escape sequences and text, and tracking SGR state.
//!
//! Internal helpers shared by [`crate::text`] and the components: a line is a mix of
//! printable text and escape sequences (CSI, OSC, APC, ...); widths count only the text.

/// One piece of a styled string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    /// An escape sequence, including its introducer and terminator.
    Escape(&'a str),
    /// Printable text (may still contain control characters).
    Text(&'a str),
}

/// Length in bytes of the escape sequence at the start of `s` (which starts with ESC).
fn escape_len(s: &str) -> usize {
    let b = s.as_bytes();
    if b.len() < 2 {
        return b.len();
    }
    match b[1] {
        b'[' => {
            // CSI: parameters and intermediates, then a final byte 0x40..=0x7e.
            let mut i = 2;
            while i < b.len() {
                if (0x40..=0x7e).contains(&b[i]) {
                    return i + 1;
                }
                i += 1;
            }
            b.len()
        }
        b']' | b'_' | b'P' | b'^' | b'X' => {
            // OSC / APC / DCS / PM / SOS: until BEL or ST (ESC \).
            let mut i = 2;
            while i < b.len() {
                if b[i] == 0x07 {
                    return i + 1;
                }
                if b[i] == 0x1b && i + 1 < b.len() && b[i + 1] == b'\\' {
                    return i + 2;
                }
                i += 1;
            }
            b.len()
        }
        _ => {
            // Two-byte escape (ESC c, ESC 7, ...); keep char boundaries intact.
            let second = s[1..].chars().next().map_or(0, char::len_utf8);
            1 + second
        }
    }
}

/// Iterates a string as [`Piece`]s.
pub(crate) fn pieces(s: &str) -> impl Iterator<Item = Piece<'_>> {
    let mut rest = s;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        if rest.starts_with('\x1b') {
            let n = escape_len(rest);
            let (e, r) = rest.split_at(n);
            rest = r;
            Some(Piece::Escape(e))
        } else {
            let n = rest.find('\x1b').unwrap_or(rest.len());
            let (t, r) = rest.split_at(n);
            rest = r;
            Some(Piece::Text(t))
        }
    })
}

/// Removes every escape sequence from `s`.
pub(crate) fn strip(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for p in pieces(s) {
        if let Piece::Text(t) = p {
            out.push_str(t);
        }
    }
    out
}

/// The graphic rendition in force after a run of SGR sequences, plus an open OSC 8 link.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SgrState {
    bold: bool,
    dim: bool,
    italic: bool,
    underline: bool,
    inverse: bool,
    strike: bool,
    fg: Option<String>,
    bg: Option<String>,
    link: Option<String>,
}

impl SgrState {
    /// True when nothing is active.
    pub(crate) fn is_plain(&self) -> bool {
        *self == Self::default()
    }

    /// Applies one escape sequence (SGR or OSC 8); others are ignored.
    pub(crate) fn apply(&mut self, esc: &str) {
        if let Some(body) = esc.strip_prefix("\x1b[").and_then(|b| b.strip_suffix('m')) {
            self.apply_sgr(body);
        } else if let Some(body) = esc.strip_prefix("\x1b]8;") {
            let body = body
                .strip_suffix('\x07')
                .or_else(|| body.strip_suffix("\x1b\\"))
                .unwrap_or(body);
            let url = body.split_once(';').map_or("", |(_, u)| u);
            self.link = (!url.is_empty()).then(|| url.to_owned());
        }
    }

    fn apply_sgr(&mut self, body: &str) {
        let params: Vec<&str> = if body.is_empty() {
            vec!["0"]
        } else {
            body.split(';').collect()
        };
        let mut i = 0;
        while i < params.len() {
            let p: u32 = params[i].parse().unwrap_or(0);
            match p {
                0 => {
                    let link = self.link.take();
                    *self = Self::default();
                    self.link = link;
                }
                1 => self.bold = true,
                2 => self.dim = true,
                3 => self.italic = true,
                4 => self.underline = true,
                7 => self.inverse = true,
                9 => self.strike = true,
                22 => {
                    self.bold = false;
                    self.dim = false;
                }
                23 => self.italic = false,
                24 => self.underline = false,
                27 => self.inverse = false,
                29 => self.strike = false,
                30..=37 | 90..=97 => self.fg = Some(p.to_string()),
                39 => self.fg = None,
                40..=47 | 100..=107 => self.bg = Some(p.to_string()),
                49 => self.bg = None,
                38 | 48 => {
                    let n = match params.get(i + 1).copied() {
                        Some("5") => 3,
                        Some("2") => 5,
                        _ => 1,
                    };
                    let end = (i + n).min(params.len());
                    let value = params[i..end].join(";");
                    if p == 38 {
                        self.fg = Some(value);
                    } else {
                        self.bg = Some(value);
                    }
                    i = end;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// The escape sequences that re-establish this state from a reset terminal.
    pub(crate) fn open(&self) -> String {
        let mut codes: Vec<&str> = Vec::new();
        if self.bold {
            codes.push("1");
        }
        if self.dim {
            codes.push("2");
        }
        if self.italic {
            codes.push("3");
        }
        if self.underline {
            codes.push("4");
        }
        if self.inverse {
            codes.push("7");
        }
        if self.strike {
            codes.push("9");
        }
        if let Some(fg) = &self.fg {
            codes.push(fg);
        }
        if let Some(bg) = &self.bg {
            codes.push(bg);
        }
        let mut out = String::new();
        if !codes.is_empty() {
            out.push_str("\x1b[");
            out.push_str(&codes.join(";"));
            out.push('m');
        }
        if let Some(url) = &self.link {
            out.push_str("\x1b]8;;");
            out.push_str(url);
            out.push('\x07');
        }
        out
    }

    /// The escape sequences that close this state (reset, and end an open link).
    pub(crate) fn close(&self) -> &'static str {
        match (self.link.is_some(), self.is_plain()) {
            (_, true) => "",
            (true, _) => "\x1b[0m\x1b]8;;\x07",
            (false, false) => "\x1b[0m",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_escapes_and_text() {
        let v: Vec<_> = pieces("a\x1b[1mb\x1b]8;;http://x\x07c").collect();
        assert_eq!(
            v,
            vec![
                Piece::Text("a"),
                Piece::Escape("\x1b[1m"),
                Piece::Text("b"),
                Piece::Escape("\x1b]8;;http://x\x07"),
                Piece::Text("c"),
            ]
        );
    }

    #[test]
    fn tracks_truecolor_and_resets() {
        let mut s = SgrState::default();
        s.apply("\x1b[1;38;2;1;2;3m");
        assert_eq!(s.open(), "\x1b[1;38;2;1;2;3m");
        s.apply("\x1b[39m");
        assert_eq!(s.open(), "\x1b[1m");
        s.apply("\x1b[0m");
        assert!(s.is_plain());
    }

    #[test]
    fn truncated_escape_does_not_panic() {
        assert_eq!(pieces("\x1b[12").count(), 1);
        assert_eq!(
            pieces("\x1bé").collect::<Vec<_>>(),
            vec![Piece::Escape("\x1bé")]
        );
    }
}
