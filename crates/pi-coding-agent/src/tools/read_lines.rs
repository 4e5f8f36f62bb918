//! Line selection for `read` in bounded memory: the file is streamed once,
//! every line is counted, and only the selected lines that can still fit in
//! the output limits are kept (a 1 GB file read with `limit: 10` holds a few
//! kilobytes, not the file).

use std::io::{self, Read};

/// The selected lines of a stream, bounded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Selection {
    /// The kept selected lines joined with `\n` (lossy UTF-8); all of them
    /// when `complete`, else a prefix over one of the keep limits.
    pub kept: String,
    /// Whether every selected line was kept whole.
    pub complete: bool,
    /// Lines in the whole stream (`split('\n')` count).
    pub total_lines: usize,
    /// Selected lines.
    pub selected_lines: usize,
    /// Bytes of the selected lines joined with `\n`.
    pub selected_bytes: usize,
    /// Bytes of the first selected line.
    pub first_line_bytes: usize,
}

/// Streams `reader`, selecting lines `start..end` (0-based, `end` clipped to
/// the line count) and keeping them until more than `keep_lines` lines or
/// `keep_bytes` bytes are kept, which is enough for a head truncation with
/// those limits to reach the same result as on the whole selection.
pub(crate) fn select_lines<R: Read>(
    mut reader: R,
    start: usize,
    end: usize,
    keep_lines: usize,
    keep_bytes: usize,
) -> io::Result<Selection> {
    let mut state = State {
        start,
        end,
        keep_lines,
        keep_bytes,
        kept: String::new(),
        kept_count: 0,
        complete: true,
        line: 0,
        line_bytes: 0,
        current: Vec::new(),
        selected_lines: 0,
        selected_bytes: 0,
        first_line_bytes: 0,
    };
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let mut chunk = &buffer[..n];
        while let Some(at) = chunk.iter().position(|&b| b == b'\n') {
            state.extend(&chunk[..at]);
            state.end_line();
            chunk = &chunk[at + 1..];
        }
        state.extend(chunk);
    }
    state.end_line();
    Ok(Selection {
        kept: state.kept,
        complete: state.complete,
        total_lines: state.line,
        selected_lines: state.selected_lines,
        selected_bytes: state.selected_bytes,
        first_line_bytes: state.first_line_bytes,
    })
}

struct State {
    start: usize,
    end: usize,
    keep_lines: usize,
    keep_bytes: usize,
    kept: String,
    kept_count: usize,
    complete: bool,
    line: usize,
    line_bytes: usize,
    current: Vec<u8>,
    selected_lines: usize,
    selected_bytes: usize,
    first_line_bytes: usize,
}

impl State {
    fn selected(&self) -> bool {
        (self.start..self.end).contains(&self.line)
    }

    fn keeping(&self) -> bool {
        self.kept_count <= self.keep_lines && self.kept.len() <= self.keep_bytes
    }

    fn extend(&mut self, bytes: &[u8]) {
        self.line_bytes += bytes.len();
        if self.selected() && self.keeping() {
            let room = (self.keep_bytes + 1).saturating_sub(self.current.len());
            self.current
                .extend_from_slice(&bytes[..bytes.len().min(room)]);
        }
    }

    fn end_line(&mut self) {
        if self.selected() {
            if self.selected_lines == 0 {
                self.first_line_bytes = self.line_bytes;
            } else {
                self.selected_bytes += 1;
            }
            self.selected_lines += 1;
            self.selected_bytes += self.line_bytes;
            if self.keeping() {
                if self.kept_count > 0 {
                    self.kept.push('\n');
                }
                self.kept.push_str(&String::from_utf8_lossy(&self.current));
                self.kept_count += 1;
                if self.current.len() < self.line_bytes {
                    self.complete = false;
                }
            } else {
                self.complete = false;
            }
        }
        self.current.clear();
        self.line_bytes = 0;
        self.line += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn select(text: &str, start: usize, end: usize, lines: usize, bytes: usize) -> Selection {
        // One byte per read, so line ends always fall between reads.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let Some((first, rest)) = self.0.split_first() else {
                    return Ok(0);
                };
                buf[0] = *first;
                self.0 = rest;
                Ok(1)
            }
        }
        let whole = select_lines(text.as_bytes(), start, end, lines, bytes).unwrap();
        let trickled = select_lines(Trickle(text.as_bytes()), start, end, lines, bytes).unwrap();
        assert_eq!(whole, trickled);
        whole
    }

    #[test]
    fn counts_lines_like_split_and_keeps_the_selection() {
        let s = select("a\nbb\nccc\n", 1, 3, 10, 100);
        assert_eq!(s.total_lines, 4);
        assert_eq!(s.kept, "bb\nccc");
        assert!(s.complete);
        assert_eq!(
            (s.selected_lines, s.selected_bytes, s.first_line_bytes),
            (2, 6, 2)
        );
        assert_eq!(select("", 0, usize::MAX, 10, 100).total_lines, 1);
    }

    #[test]
    fn stops_keeping_past_the_limits_but_counts_everything() {
        let text = (0..100)
            .map(|i| format!("line{i}"))
            .collect::<Vec<_>>()
            .join("\n");
        let s = select(&text, 0, usize::MAX, 3, 1000);
        assert_eq!(s.kept, "line0\nline1\nline2\nline3");
        assert!(!s.complete);
        assert_eq!(s.total_lines, 100);
        assert_eq!(s.selected_bytes, text.len());
        let long = format!("{}\nshort", "x".repeat(50));
        let s = select(&long, 0, usize::MAX, 10, 20);
        assert_eq!(s.kept.len(), 21);
        assert_eq!(s.first_line_bytes, 50);
        assert!(!s.complete);
    }
}
