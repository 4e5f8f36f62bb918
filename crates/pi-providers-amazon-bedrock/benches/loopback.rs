//! The `perf` example's event-stream row without building the app: pi
//! 0.73.1's recorded answer (`fixtures/pi-0.73.1-bedrock/a-text-bed`) with
//! its "mock " text delta repeated to about 16 MB, encoded as AWS
//! event-stream messages, served by pi-test-support's loopback mock (a fresh
//! one per run, started before the clock) and read through pi-ai's registry
//! (`pi_ai::complete`, the wire registered as `register()` registers it, with
//! a Bedrock API key in its environment). Prints the CPU time of each run
//! (this thread's `schedstat`: mock, HTTP, framing, decoder and events) as
//! MB/s, then the median and the best.
//!
//! `cargo bench -p pi-providers-amazon-bedrock --bench loopback [-- MB RUNS]`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_docs
)]

use std::path::PathBuf;

use pi_ai::{Context, Model, StopReason, StreamOptions};
use pi_providers_amazon_bedrock::{API, AwsEnvironment, BedrockProvider, BedrockWire, SOURCE_ID};
use pi_test_support::event_stream::encode_frame;
use pi_test_support::mock_server::{MockResponse, MockServer};
use serde_json::{Value, json};

fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |ns| ns * 1e-9)
}

/// The recorded answer's events as SSE-text frames.
fn recorded_frames() -> Vec<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/pi-0.73.1-bedrock/a-text-bed/responses.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    first["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|pair| {
            format!(
                "event: {}\ndata: {}\n\n",
                pair[0].as_str().unwrap(),
                pair[1]
            )
        })
        .collect()
}

/// About `bytes` of event-stream messages: the recording with its "mock "
/// delta repeated.
fn body(bytes: usize) -> Vec<u8> {
    let frames: Vec<Vec<u8>> = recorded_frames().iter().map(|f| encode_frame(f)).collect();
    let at = recorded_frames()
        .iter()
        .position(|f| f.contains("\"mock \""))
        .unwrap();
    let fixed: usize = frames.iter().map(Vec::len).sum();
    let repeat = bytes.saturating_sub(fixed) / frames[at].len() + 1;
    let mut out = Vec::with_capacity(fixed + repeat * frames[at].len());
    for (i, frame) in frames.iter().enumerate() {
        for _ in 0..if i == at { repeat } else { 1 } {
            out.extend_from_slice(frame);
        }
    }
    out
}

fn model(url: &str) -> Model {
    serde_json::from_value(json!({
        "id": "mock.nova-v1:0",
        "name": "Mock",
        "api": "bedrock-converse-stream",
        "provider": "amazon-bedrock",
        "baseUrl": url,
        "reasoning": false,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1_000_000,
        "maxTokens": 8192,
    }))
    .unwrap()
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let megabytes = args.first().copied().unwrap_or(16);
    let runs = args.get(1).copied().unwrap_or(12);
    let env = AwsEnvironment::from_vars([("AWS_BEARER_TOKEN_BEDROCK", "bench-key")]);
    BedrockProvider::of(BedrockWire::with_env(env)).register(API, SOURCE_ID);
    let body = body(megabytes << 20);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let context = Context::default();
    let mut rates = Vec::new();
    runtime.block_on(async {
        for _ in 0..runs {
            let server = MockServer::start([MockResponse::Raw {
                status: 200,
                content_type: "application/vnd.amazon.eventstream".to_owned(),
                body: body.clone(),
            }])
            .await
            .unwrap();
            let model = model(&server.url());
            let options = StreamOptions {
                api_key: Some("unused".to_owned()),
                ..StreamOptions::default()
            };
            let start = cpu_seconds();
            let message = pi_ai::complete(&model, &context, options).await;
            let seconds = cpu_seconds() - start;
            assert!(
                message.stop_reason != StopReason::Error,
                "{:?}",
                message.error_message
            );
            let rate = body.len() as f64 / seconds / 1e6;
            println!(
                "{:.1} MB in {:.1} ms CPU: {rate:.1} MB/s",
                body.len() as f64 / 1e6,
                seconds * 1e3
            );
            rates.push(rate);
        }
    });
    rates.sort_by(f64::total_cmp);
    println!(
        "median {:.1} MB/s, best {:.1} MB/s over {} runs",
        rates[rates.len() / 2],
        rates[rates.len() - 1],
        rates.len()
    );
}
