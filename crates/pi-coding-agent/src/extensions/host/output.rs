//! Where the extension host's own output goes (its `console.log`,
//! `process.stdout.write`, stderr): to pi-rs's stdout or stderr, unless a
//! mode routes it ([`route_output`]) — the interactive mode does, so the
//! text is written above its live region instead of through it.

use std::sync::{Mutex, PoisonError};

/// Receives a chunk of the host's output.
pub type OutputSink = Box<dyn Fn(Vec<u8>) + Send + Sync>;

static SINK: Mutex<Option<OutputSink>> = Mutex::new(None);

/// Routes what extension hosts write to `sink` from now on (`None`: back
/// to pi-rs's own stdout and stderr).
pub fn route_output(sink: Option<OutputSink>) {
    *SINK.lock().unwrap_or_else(PoisonError::into_inner) = sink;
}

/// Hands `chunk` to the routed sink; false when none is set.
pub(super) fn routed(chunk: &[u8]) -> bool {
    let sink = SINK.lock().unwrap_or_else(PoisonError::into_inner);
    match sink.as_ref() {
        Some(sink) => {
            sink(chunk.to_vec());
            true
        }
        None => false,
    }
}
