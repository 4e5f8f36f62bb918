//! A wire's decoder run over frames with no HTTP: the event stream a live
//! call with that body produces once the server has accepted the request.

use futures::StreamExt;
use pi_ai::{AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream, Model};
use pi_http::{SseDecoder, SseFrame};

/// The timestamp of the initial message [`replay`] starts from, fixed so
/// snapshots are stable.
pub const REPLAY_TIMESTAMP: i64 = 1_700_000_000_000;

/// Runs `decoder` over `frames` with the transport's own frame loop
/// (`pi_http::replay_sse`: `start`, one call per frame until the decoder
/// ends the stream, then `end_of_stream`). The initial message is
/// `model`'s, stamped [`REPLAY_TIMESTAMP`].
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
    decoder: D,
) -> AssistantMessageEventStream {
    pi_http::replay_sse(initial, frames, decoder)
}

/// Every event of [`replay`].
pub async fn replay_events<D: SseDecoder>(
    model: &Model,
    frames: Vec<SseFrame>,
    decoder: D,
) -> Vec<AssistantMessageEvent> {
    replay(model, frames, decoder).collect().await
}
