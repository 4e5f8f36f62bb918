//! The pi 0.73.1 captures of this wire (`fixtures/pi-0.73.1-bedrock`): their
//! folders and sessions, the mock models (provider `mock-bed`), and recorded
//! answers framed exactly as a live body is (SSE text -> AWS event-stream
//! bytes -> [`EventStreamFraming`]).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pi_http::{BodyFraming, SseFrame};
use pi_providers_amazon_bedrock::EventStreamFraming;
use pi_test_support::captures::CapturedWire;
use pi_test_support::event_stream::encode_frame;
use pi_test_support::{raw_frames, read_sse};

/// The mock provider of the captures.
pub const PROVIDER: &str = "mock-bed";
/// The recordings' folder under `fixtures/sse`.
pub const WIRE: &str = "bedrock-converse-stream";
/// The mock models.
pub const NOVA: &str = "mock.nova-v1:0";
/// A budget-thinking Claude model (cache points, interleaved thinking).
pub const SONNET: &str = "us.anthropic.claude-sonnet-4-5-mock-v1:0";
/// An adaptive-thinking Claude model.
pub const OPUS: &str = "us.anthropic.claude-opus-4-6-mock-v1";

/// The frames of recording `name`, as the live transport frames them: each
/// SSE-text frame encoded as an event-stream message, the bytes cut by the
/// wire's framing in small chunks.
pub fn frames(name: &str) -> Vec<SseFrame> {
    let text = read_sse(WIRE, name);
    let bytes: Vec<u8> = raw_frames(&text)
        .iter()
        .flat_map(|f| encode_frame(f))
        .collect();
    let mut framing = EventStreamFraming::new();
    let mut out = Vec::new();
    for chunk in bytes.chunks(7) {
        framing.push(chunk, &mut out).unwrap();
    }
    framing.finish().unwrap();
    out
}

/// The captures of this wire and their mock provider.
pub const CAPTURES: CapturedWire = CapturedWire::new("pi-0.73.1-bedrock", PROVIDER);
