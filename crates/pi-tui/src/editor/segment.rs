//! Grapheme segmentation with atomic paste markers, character classes and the editor's
//! word wrap (chunks that keep byte offsets into the logical line).

use std::collections::HashSet;

use unicode_segmentation::UnicodeSegmentation;

use crate::text::{grapheme_width, visible_width};

/// One unit the cursor moves over: a grapheme, or a whole paste marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seg<'a> {
    /// Byte offset in the line.
    pub start: usize,
    /// The text.
    pub text: &'a str,
    /// Whether this is a paste marker.
    pub marker: bool,
}

impl Seg<'_> {
    pub(crate) fn end(&self) -> usize {
        self.start + self.text.len()
    }

    pub(crate) fn width(&self) -> usize {
        if self.marker {
            visible_width(self.text)
        } else {
            grapheme_width(self.text)
        }
    }

    pub(crate) fn is_space(&self) -> bool {
        !self.marker && self.text.chars().all(char::is_whitespace)
    }

    pub(crate) fn is_punct(&self) -> bool {
        !self.marker
            && self
                .text
                .chars()
                .next()
                .is_some_and(|c| "(){}[]<>.,;:'\"!?+-=*/\\|&%^$#@~`".contains(c))
    }
}

/// If `s` starts with a paste marker (`[paste #N]`, `[paste #N +L lines]`,
/// `[paste #N C chars]`), its id and byte length.
pub(crate) fn parse_marker(s: &str) -> Option<(u32, usize)> {
    let rest = s.strip_prefix("[paste #")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let id: u32 = rest[..digits].parse().ok()?;
    let after = &rest[digits..];
    let tail_len = if after.starts_with(']') {
        1
    } else if let Some(r) = after.strip_prefix(" +") {
        let n = r.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 || !r[n..].starts_with(" lines]") {
            return None;
        }
        2 + n + " lines]".len()
    } else if let Some(r) = after.strip_prefix(' ') {
        let n = r.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 || !r[n..].starts_with(" chars]") {
            return None;
        }
        1 + n + " chars]".len()
    } else {
        return None;
    };
    Some((id, "[paste #".len() + digits + tail_len))
}

/// Splits `line` into cursor units; markers whose id is in `ids` are one unit.
pub(crate) fn segments<'a>(line: &'a str, ids: &HashSet<u32>) -> Vec<Seg<'a>> {
    let mut out = Vec::new();
    let mut skip_to = 0;
    for (i, g) in line.grapheme_indices(true) {
        if i < skip_to {
            continue;
        }
        if g == "["
            && !ids.is_empty()
            && let Some((id, len)) = parse_marker(&line[i..])
            && ids.contains(&id)
        {
            out.push(Seg {
                start: i,
                text: &line[i..i + len],
                marker: true,
            });
            skip_to = i + len;
            continue;
        }
        out.push(Seg {
            start: i,
            text: g,
            marker: false,
        });
    }
    out
}

/// One visual row of a logical line: bytes `start..end` of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Chunk {
    pub start: usize,
    pub end: usize,
}

/// Word-wraps `line` to `width` cells as pi's editor does: breaks after the last run of
/// spaces before a word, spaces stay at the end of the row, overlong words break anywhere,
/// and a marker wider than a row is split visually (it stays atomic for editing).
pub(crate) fn wrap_chunks(line: &str, width: usize, ids: &HashSet<u32>) -> Vec<Chunk> {
    let width = width.max(1);
    if line.is_empty() || visible_width(line) <= width {
        return vec![Chunk {
            start: 0,
            end: line.len(),
        }];
    }
    let segs = segments(line, ids);
    let mut chunks = Vec::new();
    let mut cur_w = 0usize;
    let mut chunk_start = 0usize;
    let mut opp: Option<(usize, usize)> = None; // (byte index, width up to it)
    for (i, seg) in segs.iter().enumerate() {
        let w = seg.width();
        if cur_w + w > width {
            match opp {
                Some((at, at_w)) if cur_w - at_w + w <= width => {
                    chunks.push(Chunk {
                        start: chunk_start,
                        end: at,
                    });
                    chunk_start = at;
                    cur_w -= at_w;
                }
                _ if chunk_start < seg.start => {
                    chunks.push(Chunk {
                        start: chunk_start,
                        end: seg.start,
                    });
                    chunk_start = seg.start;
                    cur_w = 0;
                }
                _ => {}
            }
            opp = None;
        }
        if w > width {
            // An atomic unit wider than a row: split it by graphemes, visually only.
            let mut row_w = 0;
            for (j, g) in seg.text.grapheme_indices(true) {
                let gw = grapheme_width(g);
                if row_w + gw > width && row_w > 0 {
                    chunks.push(Chunk {
                        start: chunk_start,
                        end: seg.start + j,
                    });
                    chunk_start = seg.start + j;
                    row_w = 0;
                }
                row_w += gw;
            }
            cur_w = row_w;
            opp = None;
            continue;
        }
        cur_w += w;
        if seg.is_space()
            && let Some(next) = segs.get(i + 1)
            && !next.is_space()
        {
            opp = Some((next.start, cur_w));
        }
    }
    chunks.push(Chunk {
        start: chunk_start,
        end: line.len(),
    });
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[u32]) -> HashSet<u32> {
        v.iter().copied().collect()
    }

    fn texts<'a>(line: &'a str, chunks: &[Chunk]) -> Vec<&'a str> {
        chunks.iter().map(|c| &line[c.start..c.end]).collect()
    }

    #[test]
    fn markers_parse() {
        assert_eq!(parse_marker("[paste #1 +12 lines] x"), Some((1, 20)));
        assert_eq!(parse_marker("[paste #23 1500 chars]"), Some((23, 22)));
        assert_eq!(parse_marker("[paste #4]"), Some((4, 10)));
        assert_eq!(parse_marker("[paste #x]"), None);
        assert_eq!(parse_marker("[paste #1 +2 linez]"), None);
    }

    #[test]
    fn only_known_markers_are_atomic() {
        let line = "a[paste #1 +12 lines]b[paste #2 9 chars]";
        let segs = segments(line, &ids(&[1]));
        assert_eq!(segs[1].text, "[paste #1 +12 lines]");
        assert!(segs[1].marker);
        assert_eq!(segs[3].text, "[");
    }

    #[test]
    fn wraps_at_word_starts_keeping_spaces() {
        let line = "hello brave new world";
        assert_eq!(
            texts(line, &wrap_chunks(line, 11, &ids(&[]))),
            vec!["hello ", "brave new ", "world"]
        );
        let line = "abcdefghij";
        assert_eq!(
            texts(line, &wrap_chunks(line, 4, &ids(&[]))),
            vec!["abcd", "efgh", "ij"]
        );
        let line = "日本語テキスト";
        for c in wrap_chunks(line, 5, &ids(&[])) {
            assert!(visible_width(&line[c.start..c.end]) <= 5);
        }
    }

    #[test]
    fn a_wide_marker_is_split_visually() {
        let line = "x [paste #1 +12 lines]";
        let chunks = wrap_chunks(line, 8, &ids(&[1]));
        for c in &chunks {
            assert!(visible_width(&line[c.start..c.end]) <= 8);
        }
        assert_eq!(texts(line, &chunks).concat(), line);
    }
}
