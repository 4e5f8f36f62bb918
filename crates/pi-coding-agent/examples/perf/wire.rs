//! Per wire, through pi-ai's registry (each provider crate's `register()`)
//! against a loopback mock that never parses the request: SSE decode of a
//! large streamed answer (framing included) and the request of a long
//! context (conversion to the wire format, JSON encoding, loopback send).

use std::path::PathBuf;

use pi_ai::{Context, Message, Model, StopReason, StreamOptions};
use pi_test_support::mock_server::{MockResponse, MockServer};
use serde_json::{Value, json};

/// One wire: its api, the recorded capture it replays and its base path.
pub struct Wire {
    /// Short name for the table.
    pub name: &'static str,
    api: &'static str,
    provider: &'static str,
    capture: &'static str,
    base_path: &'static str,
}

/// The wires measured (azure-openai-responses replays the openai-responses
/// capture: the same events, its own endpoint and decoder).
pub const WIRES: [Wire; 5] = [
    Wire {
        name: "anthropic-messages",
        api: "anthropic-messages",
        provider: "anthropic",
        capture: "a-text-ant",
        base_path: "",
    },
    Wire {
        name: "openai-completions",
        api: "openai-completions",
        provider: "openai",
        capture: "a-text-oai",
        base_path: "/v1",
    },
    Wire {
        name: "openai-responses",
        api: "openai-responses",
        provider: "openai",
        capture: "a-text-resp",
        base_path: "/v1",
    },
    Wire {
        name: "azure-openai-responses",
        api: "azure-openai-responses",
        provider: "azure-openai-responses",
        capture: "a-text-resp",
        base_path: "/openai/v1",
    },
    Wire {
        name: "google-generative-ai",
        api: "google-generative-ai",
        provider: "google",
        capture: "a-text-goog",
        base_path: "/v1beta",
    },
];

/// Registers every provider, as the app does.
pub fn register_all() {
    pi_providers_anthropic::register();
    pi_providers_openai_completions::register();
    pi_providers_openai_responses::register();
    pi_providers_google::register();
    pi_providers_azure_openai_responses::register();
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pi-0.73.1")
}

/// The SSE frames pi 0.73.1 was answered with in `capture`.
fn recorded_frames(capture: &str) -> Vec<String> {
    let path = fixtures().join(capture).join("responses.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    first["sse"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_owned())
        .collect()
}

/// The recorded answer with its middle text delta (the frame holding "a
/// mock model") repeated until the body has about `bytes` bytes.
pub fn long_answer(wire: &Wire, bytes: usize) -> String {
    let frames = recorded_frames(wire.capture);
    let at = frames
        .iter()
        .position(|f| f.contains("a mock model"))
        .unwrap();
    let fixed: usize = frames.iter().map(String::len).sum();
    let repeat = bytes.saturating_sub(fixed) / frames[at].len() + 1;
    let mut body = String::with_capacity(fixed + repeat * frames[at].len());
    for (i, frame) in frames.iter().enumerate() {
        let times = if i == at { repeat } else { 1 };
        for _ in 0..times {
            body.push_str(frame);
        }
    }
    body
}

/// The recorded (short) answer as it was.
pub fn short_answer(wire: &Wire) -> String {
    recorded_frames(wire.capture).concat()
}

fn model(wire: &Wire, server: &MockServer) -> Model {
    serde_json::from_value(json!({
        "id": "mock-model",
        "name": "Mock",
        "api": wire.api,
        "provider": wire.provider,
        "baseUrl": format!("{}{}", server.url(), wire.base_path),
        "reasoning": false,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1_000_000,
        "maxTokens": 8192,
    }))
    .unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// The mean of at least `reps` runs (and of enough runs for [`crate::MIN_CPU_SECONDS`]): one request with `messages` answered by `answer`;
/// seconds and the request body's size.
pub fn request(wire: &Wire, messages: &[Message], answer: &str, reps: usize) -> (f64, usize) {
    let rt = runtime();
    rt.block_on(async {
        let server = MockServer::start([MockResponse::sse([answer.to_owned()])])
            .await
            .unwrap();
        let model = model(wire, &server);
        let context = Context {
            system_prompt: Some("You are a benchmark.".to_owned()),
            messages: messages.to_vec(),
            ..Context::default()
        };
        let (mut total, mut runs) = (0.0, 0usize);
        while runs < reps || (total < crate::MIN_CPU_SECONDS && runs < 1_000) {
            let options = StreamOptions {
                api_key: Some("sk-bench".to_owned()),
                ..StreamOptions::default()
            };
            let start = crate::cpu_seconds();
            let message = pi_ai::complete(&model, &context, options).await;
            total += crate::cpu_seconds() - start;
            runs += 1;
            assert!(
                message.stop_reason != StopReason::Error,
                "{}: {:?}",
                wire.name,
                message.error_message
            );
        }
        let sent = server.requests().last().map_or(0, |r| r.body.len());
        (total / runs as f64, sent)
    })
}
