//! The framing hook: how a success body is cut into frames for a wire's
//! decoder. SSE ([`crate::SseParser`]) is the default; a wire whose body is
//! framed otherwise (Amazon Bedrock's binary `application/vnd.amazon.eventstream`)
//! supplies its own [`BodyFraming`] through [`crate::Wire::framing`], and the
//! driver then reads the body through [`framed_body`] with the same idle
//! timeout, transport error wording and decoder loop as an SSE body.

use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::time::Duration;

use futures::{Stream, StreamExt};

use crate::sse::describe;
use crate::{HttpError, SseFrame, SseFrameRef, SseParser};

/// A body framing: bytes in arbitrary chunks to complete frames, each
/// handed to the wire's decoder as an [`SseFrame`] (`event`: the frame's
/// kind, `data`: its payload text).
pub trait BodyFraming: Send + Sync + 'static {
    /// Whether a success answer with this (lower-cased) content type is a
    /// body of this framing; any other non-empty type is reported as "not
    /// an event stream" with the start of the body.
    fn accepts_content_type(&self, content_type: &str) -> bool;

    /// Appends the frames that `chunk` completes to `out`. An error ends
    /// the stream (frames completed before it are still delivered).
    fn push(&mut self, chunk: &[u8], out: &mut Vec<SseFrame>) -> Result<(), FramingError>;

    /// Hands each frame that `chunk` completes to `on_frame`, in order, as
    /// the driver reads a live body. Frames completed before bad bytes are
    /// handed out before the error; when `on_frame` breaks, framing stops at
    /// once and `Ok(Break)` is returned (the body is not fed again). The
    /// default collects the frames with [`BodyFraming::push`]; a framing
    /// that can hand frames out borrowed from the chunk overrides it.
    fn feed(
        &mut self,
        chunk: &[u8],
        on_frame: &mut dyn FnMut(SseFrameRef<'_>) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>, FramingError> {
        let mut frames = Vec::new();
        let pushed = self.push(chunk, &mut frames);
        for frame in &frames {
            if on_frame(frame.as_frame_ref()).is_break() {
                return Ok(ControlFlow::Break(()));
            }
        }
        pushed.map(|()| ControlFlow::Continue(()))
    }

    /// The body ended: an error if it stopped inside a frame that the
    /// framing cannot drop silently. The default accepts any ending.
    fn finish(&mut self) -> Result<(), FramingError> {
        Ok(())
    }
}

/// Bytes that do not follow the framing (a bad checksum, a length out of
/// range, invalid UTF-8): the stream ends with `"Stream error: <text>"`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FramingError(pub String);

impl BodyFraming for SseParser {
    fn accepts_content_type(&self, content_type: &str) -> bool {
        content_type.contains("event-stream")
    }

    fn push(&mut self, chunk: &[u8], out: &mut Vec<SseFrame>) -> Result<(), FramingError> {
        SseParser::push(self, chunk, out).map_err(|e| FramingError(e.to_string()))
    }
}

/// Frames of `response`'s body cut by `framing`. Transport failures, framing
/// errors and silence longer than `idle_timeout` become one `Err` item,
/// after which the stream ends ([`crate::sse_frames`] is this with the SSE
/// parser).
pub fn framed_body(
    response: reqwest::Response,
    idle_timeout: Duration,
    framing: Box<dyn BodyFraming>,
) -> impl Stream<Item = Result<SseFrame, HttpError>> + Send + 'static {
    let state = State {
        body: Box::pin(response.bytes_stream()),
        framing,
        ready: VecDeque::new(),
        failed: None,
    };
    futures::stream::unfold(Some(state), move |state| async move {
        let mut state = state?;
        loop {
            if let Some(frame) = state.ready.pop_front() {
                return Some((Ok(frame), Some(state)));
            }
            if let Some(error) = state.failed.take() {
                return Some((Err(HttpError::Stream(error.0)), None));
            }
            let chunk = match tokio::time::timeout(idle_timeout, state.body.next()).await {
                Err(_) => return Some((Err(HttpError::Idle(idle_timeout)), None)),
                Ok(None) => {
                    return match state.framing.finish() {
                        Ok(()) => None,
                        Err(error) => Some((Err(HttpError::Stream(error.0)), None)),
                    };
                }
                Ok(Some(Err(error))) => {
                    return Some((Err(HttpError::Stream(describe(&error))), None));
                }
                Ok(Some(Ok(chunk))) => chunk,
            };
            let mut frames = Vec::new();
            let pushed = state.framing.push(&chunk, &mut frames);
            state.ready.extend(frames);
            state.failed = pushed.err();
        }
    })
}

type Body = std::pin::Pin<Box<dyn Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>;

struct State {
    body: Body,
    framing: Box<dyn BodyFraming>,
    ready: VecDeque<SseFrame>,
    failed: Option<FramingError>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One frame per byte; a `!` is bad bytes.
    struct Bytes;

    impl BodyFraming for Bytes {
        fn accepts_content_type(&self, _content_type: &str) -> bool {
            true
        }

        fn push(&mut self, chunk: &[u8], out: &mut Vec<SseFrame>) -> Result<(), FramingError> {
            for &byte in chunk {
                if byte == b'!' {
                    return Err(FramingError("bad byte".into()));
                }
                out.push(SseFrame {
                    event: "byte".into(),
                    data: char::from(byte).to_string(),
                });
            }
            Ok(())
        }
    }

    fn fed(chunk: &[u8], stop_at: &str) -> (Vec<String>, Result<ControlFlow<()>, FramingError>) {
        let mut seen = Vec::new();
        let result = Bytes.feed(chunk, &mut |frame| {
            seen.push(frame.data.to_owned());
            if frame.data == stop_at {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        (seen, result)
    }

    #[test]
    fn the_default_feed_hands_out_what_push_collects() {
        let (seen, result) = fed(b"abc", "");
        assert_eq!(seen, ["a", "b", "c"]);
        assert_eq!(result, Ok(ControlFlow::Continue(())));

        let (seen, result) = fed(b"abc", "b");
        assert_eq!(seen, ["a", "b"]);
        assert_eq!(result, Ok(ControlFlow::Break(())));

        let (seen, result) = fed(b"ab!c", "");
        assert_eq!(seen, ["a", "b"], "frames before bad bytes come first");
        assert_eq!(result, Err(FramingError("bad byte".into())));
    }
}
