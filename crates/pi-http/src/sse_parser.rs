//! An incremental SSE parser (the WHATWG `text/event-stream` rules) whose
//! work is linear in the bytes received: each byte is scanned for a line end
//! once, however the body is chunked. (`eventsource-stream` re-parses the
//! whole pending line on every chunk, which made one 16 MB event cost 25 s.)

use crate::SseFrame;

/// The largest event (pending line plus collected data) accepted, so a
/// server that streams an endless line cannot exhaust memory.
pub const MAX_EVENT_BYTES: usize = 256 * 1024 * 1024;

/// Why a body is not a valid event stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseParseError {
    /// A line is not valid UTF-8.
    #[error("invalid UTF-8 in stream: {0}")]
    Utf8(String),
    /// One event exceeded [`MAX_EVENT_BYTES`].
    #[error("event larger than {} MiB", MAX_EVENT_BYTES / (1024 * 1024))]
    TooLarge,
}

/// Incremental parser state: feed it body chunks, collect frames.
#[derive(Debug, Default)]
pub struct SseParser {
    pending: Vec<u8>,
    /// Bytes of `pending` already known to hold no line end.
    scanned: usize,
    started: bool,
    event: String,
    data: String,
    has_data: bool,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one chunk and appends every event it completes to `out`.
    ///
    /// Line ends are found with `memchr` over the bytes; a chunk is parsed
    /// in place, and only its unfinished last line is copied (into
    /// `pending`, joined with the next chunk).
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<SseFrame>) -> Result<(), SseParseError> {
        let mut chunk = chunk;
        if !self.started {
            self.pending.extend_from_slice(chunk);
            if self.pending.len() < 3 && b"\xEF\xBB\xBF".starts_with(&self.pending) {
                return Ok(());
            }
            self.started = true;
            if self.pending.starts_with(b"\xEF\xBB\xBF") {
                self.pending.drain(..3);
            }
            chunk = &[];
        }
        if !self.pending.is_empty() {
            // Complete the pending line with the chunk's bytes up to its
            // first line end (a CRLF taken whole); the rest is parsed in place.
            let take = match memchr::memchr2(b'\n', b'\r', chunk) {
                None => chunk.len(),
                Some(end) if chunk[end] == b'\r' && chunk.get(end + 1) == Some(&b'\n') => end + 2,
                Some(end) => end + 1,
            };
            self.pending.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
            let pending = std::mem::take(&mut self.pending);
            let from = self.scanned.min(pending.len());
            let used = self.lines(&pending, from, out);
            self.pending = pending;
            self.pending.drain(..used?);
            if !self.pending.is_empty() {
                // Still unfinished (a final CR): the rest joins it.
                let from = self.pending.len().saturating_sub(1);
                self.pending.extend_from_slice(chunk);
                let pending = std::mem::take(&mut self.pending);
                let used = self.lines(&pending, from, out);
                self.pending = pending;
                self.pending.drain(..used?);
                chunk = &[];
            }
        }
        if self.pending.is_empty() {
            let used = self.lines(chunk, 0, out)?;
            self.pending.extend_from_slice(&chunk[used..]);
        }
        // What is left holds no line end, except perhaps a final CR.
        self.scanned = match self.pending.last() {
            Some(b'\r') => self.pending.len() - 1,
            _ => self.pending.len(),
        };
        if self.pending.len() + self.data.len() > MAX_EVENT_BYTES {
            return Err(SseParseError::TooLarge);
        }
        Ok(())
    }

    /// Applies every complete line of `buf` (whose bytes before `from` hold
    /// no line end); returns how many bytes were consumed.
    fn lines(
        &mut self,
        buf: &[u8],
        from: usize,
        out: &mut Vec<SseFrame>,
    ) -> Result<usize, SseParseError> {
        let mut start = 0;
        let mut at = from;
        while let Some(offset) = memchr::memchr2(b'\n', b'\r', &buf[at..]) {
            let end = at + offset;
            let next = match buf[end] {
                b'\r' => match buf.get(end + 1) {
                    Some(b'\n') => end + 2,
                    Some(_) => end + 1,
                    // A CR at the end of the chunk may be the first half of CRLF.
                    None => break,
                },
                _ => end + 1,
            };
            let line = std::str::from_utf8(&buf[start..end])
                .map_err(|e| SseParseError::Utf8(e.to_string()))?;
            if let Some(frame) =
                Self::line(line, &mut self.event, &mut self.data, &mut self.has_data)
            {
                out.push(frame);
            }
            if self.data.len() > MAX_EVENT_BYTES {
                return Err(SseParseError::TooLarge);
            }
            start = next;
            at = next;
        }
        Ok(start)
    }

    /// Applies one line; a blank line dispatches the collected event.
    fn line(
        line: &str,
        event: &mut String,
        data: &mut String,
        has_data: &mut bool,
    ) -> Option<SseFrame> {
        if line.is_empty() {
            let name = std::mem::take(event);
            let mut payload = std::mem::take(data);
            if !std::mem::take(has_data) {
                return None;
            }
            if payload.ends_with('\n') {
                payload.pop();
            }
            let name = if name.is_empty() {
                "message".to_owned()
            } else {
                name
            };
            return Some(SseFrame {
                event: name,
                data: payload,
            });
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => value.clone_into(event),
            "data" => {
                data.push_str(value);
                data.push('\n');
                *has_data = true;
            }
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_in_chunks(body: &[u8], size: usize) -> Result<Vec<SseFrame>, SseParseError> {
        let mut parser = SseParser::new();
        let mut out = Vec::new();
        for chunk in body.chunks(size.max(1)) {
            parser.push(chunk, &mut out)?;
        }
        Ok(out)
    }

    fn frame(event: &str, data: &str) -> SseFrame {
        SseFrame {
            event: event.to_owned(),
            data: data.to_owned(),
        }
    }

    #[test]
    fn events_are_the_same_however_the_body_is_chunked() {
        let body = "\u{feff}: comment\r\nevent: a\r\ndata: one\r\ndata:two\r\n\r\ndata: x\rid: 3\r\rretry: 5\n\ndata\n\nevent: b\n\n"
            .as_bytes();
        let expected = vec![
            frame("a", "one\ntwo"),
            frame("message", "x"),
            frame("message", ""),
        ];
        for size in 1..=body.len() {
            assert_eq!(parse_in_chunks(body, size), Ok(expected.clone()), "{size}");
        }
    }

    #[test]
    fn events_are_the_same_wherever_the_body_is_cut_in_three() {
        let body = "event: a\r\ndata: one\r\n\r\ndata: x\rid: 3\r\rdata:é\n\n".as_bytes();
        let whole = parse_in_chunks(body, body.len());
        assert_eq!(whole.as_ref().map(Vec::len), Ok(3));
        for i in 0..=body.len() {
            for j in i..=body.len() {
                let mut parser = SseParser::new();
                let mut out = Vec::new();
                for part in [&body[..i], &body[i..j], &body[j..]] {
                    parser.push(part, &mut out).unwrap();
                }
                assert_eq!(Ok(out), whole, "cut at {i} and {j}");
            }
        }
    }

    #[test]
    fn an_unterminated_event_is_not_dispatched() {
        assert_eq!(
            parse_in_chunks(b"data: a\n\ndata: b\n", 4),
            Ok(vec![frame("message", "a")])
        );
    }

    #[test]
    fn invalid_utf8_is_an_error() {
        let result = parse_in_chunks(b"data: \xff\xfe\n\n", 3);
        assert!(matches!(result, Err(SseParseError::Utf8(_))), "{result:?}");
    }

    #[test]
    fn a_multibyte_character_split_across_chunks_survives() {
        assert_eq!(
            parse_in_chunks("data: é😀\n\n".as_bytes(), 1),
            Ok(vec![frame("message", "é😀")])
        );
    }

    #[test]
    fn a_large_event_in_small_chunks_parses_in_linear_time() {
        let payload = "x".repeat(8 * 1024 * 1024);
        let body = format!("data: {payload}\n\n");
        let started = std::time::Instant::now();
        let frames = parse_in_chunks(body.as_bytes(), 8 * 1024);
        let elapsed = started.elapsed();
        assert_eq!(frames.map(|f| f.len()), Ok(1));
        // Quadratic scanning takes minutes here; linear takes milliseconds.
        assert!(elapsed < std::time::Duration::from_secs(5), "{elapsed:?}");
    }
}
