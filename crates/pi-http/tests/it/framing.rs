//! The framing hook against a real loopback server: a body cut by a wire's
//! own [`BodyFraming`] reaches its decoder frame by frame, the framing
//! decides which content type is a stream, and a body that ends inside a
//! frame is a stream error when the framing says so. A recorded body
//! replayed in memory ([`replay_body`]) ends as the live one does.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use futures::StreamExt;
use pi_ai::{
    Api, AssistantMessage, CancellationToken, DoneReason, EventSink, Provider, StopReason,
};
use pi_http::{
    BodyFraming, DecodeError, FramingError, HttpRequest, RetryPolicy, SseCall, SseDecoder,
    SseFrame, SseFrameRef, StreamEnd, replay_body, stream_framed,
};
use pi_test_support::mock_server::{MockResponse, MockServer};
use pi_test_support::{assert_stream_contract, final_message};
use pretty_assertions::assert_eq;

/// Frames are `\n`-terminated lines; a stream is `text/x-lines`.
#[derive(Default)]
struct Lines {
    partial: Vec<u8>,
}

impl BodyFraming for Lines {
    fn accepts_content_type(&self, content_type: &str) -> bool {
        content_type.starts_with("text/x-lines")
    }

    fn push(&mut self, chunk: &[u8], out: &mut Vec<SseFrame>) -> Result<(), FramingError> {
        for &byte in chunk {
            if byte == b'\n' {
                let line = String::from_utf8(std::mem::take(&mut self.partial))
                    .map_err(|_| FramingError("not UTF-8".into()))?;
                out.push(SseFrame {
                    event: "line".into(),
                    data: line,
                });
            } else {
                self.partial.push(byte);
            }
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), FramingError> {
        if self.partial.is_empty() {
            Ok(())
        } else {
            Err(FramingError("the body ended inside a line".into()))
        }
    }
}

/// Each line is text.
struct Text(Option<usize>);

impl SseDecoder for Text {
    fn frame(
        &mut self,
        frame: SseFrameRef<'_>,
        sink: &mut EventSink,
    ) -> Result<Option<StreamEnd>, DecodeError> {
        let index = *self.0.get_or_insert_with(|| sink.text_start());
        sink.text_delta(index, frame.data);
        Ok(None)
    }

    fn end_of_stream(&mut self, _sink: &mut EventSink) -> StreamEnd {
        StreamEnd::Done(DoneReason::Stop)
    }
}

async fn run(response: MockResponse) -> AssistantMessage {
    let framing: Box<dyn BodyFraming> = Box::new(Lines::default());
    run_framed(response, Some(framing)).await
}

/// `response` served live, cut by `framing` (SSE when `None`).
async fn run_framed(
    response: MockResponse,
    framing: Option<Box<dyn BodyFraming>>,
) -> AssistantMessage {
    let server = MockServer::start([response]).await.unwrap();
    let call = SseCall {
        request: HttpRequest {
            url: server.url(),
            headers: Vec::new(),
            body: Vec::new().into(),
        },
        policy: RetryPolicy::NONE,
        first_byte_timeout: Duration::from_secs(5),
        idle_timeout: Duration::from_secs(5),
        on_response: None,
    };
    let initial = AssistantMessage::empty(Api::new("lines"), Provider::new("lines"), "m", 0);
    let events: Vec<_> =
        stream_framed(initial, call, framing, CancellationToken::new(), Text(None))
            .collect()
            .await;
    assert_stream_contract(&events);
    final_message(&events)
}

fn lines(body: &str) -> MockResponse {
    MockResponse::Raw {
        status: 200,
        content_type: "text/x-lines".into(),
        body: body.as_bytes().to_vec(),
    }
}

#[tokio::test]
async fn a_framed_body_reaches_the_decoder() {
    let message = run(lines("Hello \nworld\n")).await;
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.text(), "Hello world");
}

#[tokio::test]
async fn the_framing_decides_what_is_a_stream() {
    let message = run(MockResponse::sse(["data: x\n\n"])).await;
    assert_eq!(message.stop_reason, StopReason::Error);
    let error = message.error_message.unwrap();
    assert!(
        error.starts_with(
            "lines: Expected an event stream, but the server answered 200 with text/event-stream"
        ),
        "{error}"
    );
}

#[tokio::test]
async fn a_body_ending_inside_a_frame_is_a_stream_error() {
    let message = run(lines("kept\ncut")).await;
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(message.text(), "kept");
    assert_eq!(
        message.error_message.as_deref(),
        Some("lines: Stream error: the body ended inside a line")
    );
}

/// `body` replayed in memory, cut into `size`-byte chunks.
async fn replay(
    body: &str,
    size: usize,
    framing: Option<Box<dyn BodyFraming>>,
) -> AssistantMessage {
    let initial = AssistantMessage::empty(Api::new("lines"), Provider::new("lines"), "m", 0);
    let chunks = body
        .as_bytes()
        .chunks(size)
        .map(bytes::Bytes::copy_from_slice)
        .collect();
    let events: Vec<_> = replay_body(initial, chunks, framing, Text(None))
        .collect()
        .await;
    assert_stream_contract(&events);
    final_message(&events)
}

#[tokio::test]
async fn a_replayed_body_ends_as_the_live_one() {
    for (body, framed) in [
        ("Hello \nworld\n", true),
        ("kept\ncut", true),
        ("", true),
        ("data: Hello \n\ndata: wor\ndata: ld\n\n", false),
        ("data: kept\n\ndata: \u{ff}\n\n", false),
    ] {
        let live = if framed {
            run(lines(body)).await
        } else {
            run_framed(MockResponse::sse([body]), None).await
        };
        for size in [1, 3, body.len().max(1)] {
            let framing: Option<Box<dyn BodyFraming>> =
                framed.then(|| Box::new(Lines::default()) as Box<dyn BodyFraming>);
            let replayed = replay(body, size, framing).await;
            assert_eq!(replayed.stop_reason, live.stop_reason, "{body:?} by {size}");
            assert_eq!(replayed.text(), live.text(), "{body:?} by {size}");
            assert_eq!(
                replayed.error_message, live.error_message,
                "{body:?} by {size}"
            );
        }
    }
}

#[tokio::test]
async fn invalid_bytes_in_a_replayed_body_are_a_stream_error() {
    let initial = AssistantMessage::empty(Api::new("lines"), Provider::new("lines"), "m", 0);
    let chunks = vec![bytes::Bytes::from_static(b"data: kept\n\ndata: \xff\n\n")];
    let events: Vec<_> = replay_body(initial, chunks, None, Text(None))
        .collect()
        .await;
    assert_stream_contract(&events);
    let message = final_message(&events);
    assert_eq!(message.text(), "kept");
    assert_eq!(
        message.error_message.as_deref(),
        Some(
            "lines: Stream error: invalid UTF-8 in stream: invalid utf-8 sequence of 1 bytes from index 6"
        )
    );
}
