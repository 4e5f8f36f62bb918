//! Recorded SSE bodies: framed by the transport's own parser (for decoder
//! tests) or split into raw frames (for the mock server).

use pi_http::{SseFrame, SseParser};

use crate::fixtures::sse_dir;

/// The chunk size [`parse_sse`] feeds the parser with: small, so events
/// and lines are split across chunks as they are on a real connection.
const CHUNK: usize = 7;

/// The frames of a raw SSE body, framed by `pi_http::SseParser` exactly as
/// the transport frames a response (WHATWG rules: `data:` lines joined with
/// `\n`, event name `message` when absent, comments skipped, an event
/// without a closing blank line dropped), the body fed in small chunks.
pub fn parse_sse(body: &str) -> Vec<SseFrame> {
    let mut parser = SseParser::new();
    let mut frames = Vec::new();
    for chunk in body.as_bytes().chunks(CHUNK) {
        parser
            .push(chunk, &mut frames)
            .unwrap_or_else(|e| panic!("not an event stream: {e}"));
    }
    frames
}

/// A raw SSE body split after each blank line: one string per event, as
/// the mock server writes them.
pub fn raw_frames(body: &str) -> Vec<String> {
    body.split_inclusive("\n\n").map(str::to_owned).collect()
}

/// The text of `fixtures/sse/<wire>/<name>` (`name` with its `.sse`).
pub fn read_sse(wire: &str, name: &str) -> String {
    let path = sse_dir(wire).join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The frames of `fixtures/sse/<wire>/<name>` ([`parse_sse`]).
pub fn sse_file(wire: &str, name: &str) -> Vec<SseFrame> {
    parse_sse(&read_sse(wire, name))
}

/// The raw frames of `fixtures/sse/<wire>/<name>` ([`raw_frames`]).
pub fn sse_file_raw_frames(wire: &str, name: &str) -> Vec<String> {
    raw_frames(&read_sse(wire, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_follow_the_event_stream_rules() {
        let body = ": comment\r\nevent: ping\r\ndata: {}\r\n\r\ndata: a\ndata: b\n\ndata: cut";
        let frames = parse_sse(body);
        assert_eq!(
            frames,
            [
                SseFrame {
                    event: "ping".into(),
                    data: "{}".into()
                },
                SseFrame {
                    event: "message".into(),
                    data: "a\nb".into()
                },
            ]
        );
    }

    #[test]
    fn raw_frames_keep_their_blank_lines() {
        assert_eq!(
            raw_frames("data: 1\n\ndata: 2\n\n"),
            ["data: 1\n\n", "data: 2\n\n"]
        );
    }
}
