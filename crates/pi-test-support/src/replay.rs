//! A wire's decoder run over frames with no HTTP: the event stream a live
//! call with that body produces once the server has accepted the request.

use futures::StreamExt;
use pi_ai::{
    AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream, CancellationToken,
    ErrorReason, EventSink, Model,
};
use pi_http::{SseDecoder, SseFrame, StreamEnd};

/// The timestamp of the initial message [`replay`] starts from, fixed so
/// snapshots are stable.
pub const REPLAY_TIMESTAMP: i64 = 1_700_000_000_000;

/// Runs `decoder` over `frames` the way `pi_http::stream_sse` does after a
/// success status: `start`, one call per frame until the decoder ends the
/// stream (a decoder error ends it with `error`), then `end_of_stream`.
/// The initial message is `model`'s, stamped [`REPLAY_TIMESTAMP`].
pub fn replay<D: SseDecoder>(
    model: &Model,
    frames: Vec<SseFrame>,
    decoder: D,
) -> AssistantMessageEventStream {
    let initial = AssistantMessage::empty(
        model.api.clone(),
        model.provider.clone(),
        model.id.clone(),
        REPLAY_TIMESTAMP,
    );
    replay_from(initial, frames, decoder)
}

/// [`replay`] from a given initial message.
pub fn replay_from<D: SseDecoder>(
    initial: AssistantMessage,
    frames: Vec<SseFrame>,
    mut decoder: D,
) -> AssistantMessageEventStream {
    AssistantMessageEventStream::new(
        initial,
        CancellationToken::new(),
        move |mut sink| async move {
            sink.start();
            for frame in &frames {
                match decoder.frame(frame, &mut sink) {
                    Ok(None) => {}
                    Ok(Some(end)) => return finish(sink, end),
                    Err(text) => return sink.error(ErrorReason::Error, text),
                }
            }
            let end = decoder.end_of_stream(&mut sink);
            finish(sink, end);
        },
    )
}

/// Every event of [`replay`].
pub async fn replay_events<D: SseDecoder>(
    model: &Model,
    frames: Vec<SseFrame>,
    decoder: D,
) -> Vec<AssistantMessageEvent> {
    replay(model, frames, decoder).collect().await
}

fn finish(sink: EventSink, end: StreamEnd) {
    match end {
        StreamEnd::Done(reason) => sink.done(reason),
        StreamEnd::Error(text) => sink.error(ErrorReason::Error, text),
    }
}
