//! Shared driver: raw body bytes -> linear SSE parser (chunked as the first
//! byte says) -> a wire's decoder, run to the end of its event stream.

use futures::StreamExt;
use pi_ai::{AssistantMessage, AssistantMessageEventStream, CancellationToken, ErrorReason, Model};
use pi_http::{SseDecoder, SseFrame, SseParser, StreamEnd};

/// Frames of `data` (first byte: chunk size), as the transport would frame them.
pub fn frames(data: &[u8]) -> Vec<SseFrame> {
    let Some((&size, body)) = data.split_first() else {
        return Vec::new();
    };
    let mut parser = SseParser::new();
    let mut out = Vec::new();
    for chunk in body.chunks(usize::from(size).max(1)) {
        if parser.push(chunk, &mut out).is_err() {
            break;
        }
    }
    out
}

/// A catalog model of `provider`.
pub fn model(provider: &str, id: &str) -> Model {
    match pi_ai::get_model(provider, id) {
        Some(model) => model.clone(),
        None => std::process::abort(),
    }
}

/// Runs `decoder` over `frames` to completion, draining every event.
pub fn decode<D: SseDecoder>(model: &Model, frames: Vec<SseFrame>, mut decoder: D) {
    let initial = AssistantMessage::empty(
        model.api.clone(),
        model.provider.clone(),
        model.id.clone(),
        0,
    );
    let runtime = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(runtime) => runtime,
        Err(_) => std::process::abort(),
    };
    runtime.block_on(async move {
        let mut stream = AssistantMessageEventStream::new(
            initial,
            CancellationToken::new(),
            move |mut sink| async move {
                sink.start();
                for frame in &frames {
                    match decoder.frame(frame, &mut sink) {
                        Ok(None) => {}
                        Ok(Some(StreamEnd::Done(reason))) => return sink.done(reason),
                        Ok(Some(StreamEnd::Error(text))) | Err(text) => {
                            return sink.error(ErrorReason::Error, text);
                        }
                    }
                }
                match decoder.end_of_stream(&mut sink) {
                    StreamEnd::Done(reason) => sink.done(reason),
                    StreamEnd::Error(text) => sink.error(ErrorReason::Error, text),
                }
            },
        );
        while stream.next().await.is_some() {}
    });
}
