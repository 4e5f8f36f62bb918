//! Shared driver: raw body bytes -> linear SSE parser (chunked as the first
//! byte says) -> a wire's decoder, run to the end of its event stream.

use futures::StreamExt;
use pi_ai::Model;
use pi_http::{SseDecoder, SseFrame, SseParser};

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

/// Runs `decoder` over `frames` to completion (`pi_test_support::replay`:
/// the transport's own frame loop), draining every event.
pub fn decode<D: SseDecoder>(model: &Model, frames: Vec<SseFrame>, decoder: D) {
    let runtime = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(runtime) => runtime,
        Err(_) => std::process::abort(),
    };
    runtime.block_on(async move {
        let mut stream = pi_test_support::replay(model, frames, decoder);
        while stream.next().await.is_some() {}
    });
}
