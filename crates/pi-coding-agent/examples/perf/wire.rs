//! Per wire, through pi-ai's registry (each provider crate's `register()`)
//! against a loopback mock that never parses the request: SSE decode of a
//! large streamed answer (framing included) and the request of a long
//! context (conversion to the wire format, JSON encoding, loopback send).

use std::path::PathBuf;

use pi_ai::{Context, Message, Model, StopReason, StreamOptions};
use pi_test_support::mock_server::{MockResponse, MockServer};
use serde_json::{Value, json};

/// One wire: its api, the recorded capture it replays (folder of
/// `fixtures/`, capture, and the text of the delta frame repeated to make a
/// long answer) and its base path.
pub struct Wire {
    /// Short name for the table.
    pub name: &'static str,
    api: &'static str,
    provider: &'static str,
    captures: &'static str,
    capture: &'static str,
    repeated: &'static str,
    base_path: &'static str,
}

/// The wires measured (azure-openai-responses replays the openai-responses
/// capture: the same events, its own endpoint and decoder).
pub const WIRES: [Wire; 7] = [
    Wire {
        name: "anthropic-messages",
        api: "anthropic-messages",
        provider: "anthropic",
        captures: "pi-0.73.1",
        capture: "a-text-ant",
        repeated: "a mock model",
        base_path: "",
    },
    Wire {
        name: "openai-completions",
        api: "openai-completions",
        provider: "openai",
        captures: "pi-0.73.1",
        capture: "a-text-oai",
        repeated: "a mock model",
        base_path: "/v1",
    },
    Wire {
        name: "openai-responses",
        api: "openai-responses",
        provider: "openai",
        captures: "pi-0.73.1",
        capture: "a-text-resp",
        repeated: "a mock model",
        base_path: "/v1",
    },
    Wire {
        name: "azure-openai-responses",
        api: "azure-openai-responses",
        provider: "azure-openai-responses",
        captures: "pi-0.73.1",
        capture: "a-text-resp",
        repeated: "a mock model",
        base_path: "/openai/v1",
    },
    Wire {
        name: "google-generative-ai",
        api: "google-generative-ai",
        provider: "google",
        captures: "pi-0.73.1",
        capture: "a-text-goog",
        repeated: "a mock model",
        base_path: "/v1beta",
    },
    Wire {
        name: "mistral-conversations",
        api: "mistral-conversations",
        provider: "mistral",
        captures: "pi-0.73.1-mistral",
        capture: "a-text-mis",
        repeated: "mock ",
        base_path: "",
    },
    // Gemini chunks behind Vertex's URL and auth (API-key mode).
    Wire {
        name: "google-vertex",
        api: "google-vertex",
        provider: "google-vertex",
        captures: "pi-0.73.1",
        capture: "a-text-goog",
        repeated: "a mock model",
        base_path: "",
    },
];

/// Registers every provider, as the app does.
pub fn register_all() {
    pi_providers_anthropic::register();
    pi_providers_openai_completions::register();
    pi_providers_openai_responses::register();
    pi_providers_google::register();
    pi_providers_mistral::register();
    pi_providers_google_vertex::register();
    pi_providers_azure_openai_responses::register();
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// The SSE frames pi 0.73.1 was answered with in `wire`'s capture.
fn recorded_frames(wire: &Wire) -> Vec<String> {
    let path = fixtures()
        .join(wire.captures)
        .join(wire.capture)
        .join("responses.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    first["sse"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_owned())
        .collect()
}

/// The recorded answer with its middle text delta (the frame holding
/// `wire.repeated`, e.g. "a mock model") repeated until the body has about
/// `bytes` bytes.
pub fn long_answer(wire: &Wire, bytes: usize) -> String {
    let frames = recorded_frames(wire);
    let at = frames
        .iter()
        .position(|f| f.contains(wire.repeated))
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
    recorded_frames(wire).concat()
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

/// The mean of at least `reps` runs (and of enough runs for
/// [`crate::MIN_CPU_SECONDS`]): one request with `messages` answered by
/// `answer`; seconds and the request body's size. Each run has a mock of its
/// own, started before the clock starts, so the mock's copy of its canned
/// answer is not counted.
pub fn request(wire: &Wire, messages: &[Message], answer: &str, reps: usize) -> (f64, usize) {
    let rt = runtime();
    rt.block_on(async {
        let context = Context {
            system_prompt: Some("You are a benchmark.".to_owned()),
            messages: messages.to_vec(),
            ..Context::default()
        };
        let (mut total, mut runs, mut sent) = (0.0, 0usize, 0);
        while runs < reps || (total < crate::MIN_CPU_SECONDS && runs < 1_000) {
            let server = MockServer::start([MockResponse::sse([answer.to_owned()])])
                .await
                .unwrap();
            let model = model(wire, &server);
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
            sent = server.requests().last().map_or(0, |r| r.body.len());
        }
        (total / runs as f64, sent)
    })
}
