//! SSE framing throughput for one large event (1, 4 and 16 MB) arriving in
//! 16 KiB chunks, as a provider streams a huge tool-call argument. Linear
//! parsing keeps MB/s flat as the event grows.
#![allow(clippy::unwrap_used)]

use divan::counter::BytesCount;
use pi_http::SseParser;

fn main() {
    divan::main();
}

fn body(megabytes: usize) -> Vec<u8> {
    let payload = "x".repeat(megabytes * 1024 * 1024);
    format!("event: message\ndata: {payload}\n\n").into_bytes()
}

#[divan::bench(args = [1, 4, 16], sample_count = 5)]
fn one_event(bencher: divan::Bencher, megabytes: usize) {
    let body = body(megabytes);
    bencher.counter(BytesCount::new(body.len())).bench(|| {
        let mut parser = SseParser::new();
        let mut frames = Vec::new();
        for chunk in body.chunks(16 * 1024) {
            parser.push(chunk, &mut frames).unwrap();
        }
        assert_eq!(frames.len(), 1);
        frames
    });
}
