//! SSE decode throughput of the google-generative-ai and google-vertex wires
//! with framing and loopback HTTP, as the app's `perf` example measures it:
//! pi 0.73.1's recorded Gemini answer (`fixtures/pi-0.73.1/a-text-goog`)
//! with its middle text frame repeated to 4.2 and 16.8 MB, answered by a
//! fresh loopback mock per run (started before the clock), read through
//! pi-ai's registry; CPU time of this thread (the mock runs on it too).
//!
//! `cargo run --release -p pi-providers-google-vertex --example sse_throughput [rounds]`
//! (`SSE_THROUGHPUT_ONCE=1`: one google decode of the small answer, e.g.
//! to count instructions under `valgrind --tool=callgrind`). It lives here,
//! not in the google crate, because it needs both wires.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::PathBuf;

use pi_ai::{Context, Model, StopReason, StreamOptions};
use pi_test_support::mock_server::{MockResponse, MockServer};
use serde_json::{Value, json};

/// Thread CPU seconds (the first field of schedstat, in ns).
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

/// The recorded frames of the Gemini capture.
fn recorded_frames() -> Vec<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/pi-0.73.1/a-text-goog/responses.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    first["sse"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_owned())
        .collect()
}

/// The answer with its "a mock model" frame repeated to about `bytes`.
fn long_answer(bytes: usize) -> (usize, MockResponse) {
    let frames = recorded_frames();
    let at = frames
        .iter()
        .position(|f| f.contains("a mock model"))
        .unwrap();
    let fixed: usize = frames.iter().map(String::len).sum();
    let repeat = bytes.saturating_sub(fixed) / frames[at].len() + 1;
    let mut body = String::with_capacity(fixed + repeat * frames[at].len());
    for (i, frame) in frames.iter().enumerate() {
        for _ in 0..if i == at { repeat } else { 1 } {
            body.push_str(frame);
        }
    }
    (body.len(), MockResponse::sse([body]))
}

fn model(api: &str, provider: &str, base: String) -> Model {
    serde_json::from_value(json!({
        "id": "mock-model", "name": "Mock", "api": api, "provider": provider,
        "baseUrl": base, "reasoning": false, "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1_000_000, "maxTokens": 8192,
    }))
    .unwrap()
}

/// Mean CPU seconds of one decode, over at least 3 runs and 0.2 s.
async fn measure(api: &str, provider: &str, base_path: &str, answer: &MockResponse) -> f64 {
    let context = Context::default();
    let (mut total, mut runs) = (0.0, 0usize);
    let once = std::env::var_os("SSE_THROUGHPUT_ONCE").is_some();
    while runs < 1 || (!once && (runs < 3 || total < 0.2)) {
        let server = MockServer::start([answer.clone()]).await.unwrap();
        let model = model(api, provider, format!("{}{base_path}", server.url()));
        let options = StreamOptions {
            api_key: Some("sk-bench".to_owned()),
            ..StreamOptions::default()
        };
        let start = cpu_seconds();
        let message = pi_ai::complete(&model, &context, options).await;
        total += cpu_seconds() - start;
        runs += 1;
        assert!(
            message.stop_reason != StopReason::Error,
            "{:?}",
            message.error_message
        );
    }
    total / runs as f64
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1);
    pi_providers_google::register();
    pi_providers_google_vertex::register();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let answers = [long_answer(4_200_000), long_answer(16_800_000)];
    rt.block_on(async {
        if std::env::var_os("SSE_THROUGHPUT_ONCE").is_some() {
            // One decode of the small answer (for callgrind).
            measure("google-generative-ai", "google", "/v1beta", &answers[0].1).await;
            return;
        }
        for _ in 0..rounds {
            for (api, provider, base) in [
                ("google-generative-ai", "google", "/v1beta"),
                ("google-vertex", "google-vertex", ""),
            ] {
                for (len, answer) in &answers {
                    let seconds = measure(api, provider, base, answer).await;
                    println!(
                        "{api}\t{:.1} MB\t{:.0} MB/s\t{:.2} ms",
                        *len as f64 / 1e6,
                        *len as f64 / 1e6 / seconds,
                        seconds * 1e3
                    );
                }
            }
        }
    });
}
