//! Per wire, through pi-ai's registry (each provider crate's `register()`)
//! against a loopback mock that never parses the request: decode of a
//! large streamed answer (SSE, or AWS event-stream messages for Bedrock;
//! framing included) and the request of a long context (conversion to the
//! wire format, JSON encoding, loopback send).

use std::path::PathBuf;

use pi_ai::{AssistantMessage, Context, Message, Model, StopReason, StreamOptions};
use pi_test_support::event_stream::encode_frame;
use pi_test_support::mock_server::{MockResponse, MockServer};
use serde_json::{Value, json};

/// How a wire's answers are framed on the wire.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `text/event-stream`.
    Sse,
    /// AWS `application/vnd.amazon.eventstream` binary messages.
    EventStream,
}

/// The API key of the wires that take any key.
const ANY_KEY: &str = "sk-bench";

/// The Codex captures' key: an unsigned JWT carrying the
/// `chatgpt_account_id` claim the wire reads.
const CODEX_KEY: &str = "eyJhbGciOiJub25lIn0.eyJodHRwczovL2FwaS5vcGVuYWkuY29tL2F1dGgiOnsiY2hhdGdwdF9hY2NvdW50X2lkIjoiYWNjLW1vY2stMDAwMSJ9LCJleHAiOjQxMDI0NDQ4MDAsInN1YiI6InVzZXItbW9jayJ9.bW9jay1zaWduYXR1cmU";

/// One wire: its api, the recorded capture it replays (folder of
/// `fixtures/`, capture, and the text of the delta frame repeated to make a
/// long answer), its base path, API key and framing.
pub struct Wire {
    /// Short name for the table.
    pub name: &'static str,
    /// Its api (`Model::api`).
    pub api: &'static str,
    provider: &'static str,
    captures: &'static str,
    capture: &'static str,
    repeated: &'static str,
    base_path: &'static str,
    api_key: &'static str,
    /// How its answers are framed.
    pub framing: Framing,
}

impl Wire {
    /// The decode row's workload name.
    pub fn decode_workload(&self) -> String {
        let framing = match self.framing {
            Framing::Sse => "SSE",
            Framing::EventStream => "event-stream",
        };
        format!(
            "{framing} decode incl. framing and loopback HTTP, CPU, {}",
            self.name
        )
    }

    /// The in-memory decode row's workload name.
    pub fn decode_in_memory_workload(&self) -> String {
        let framing = match self.framing {
            Framing::Sse => "SSE",
            Framing::EventStream => "event-stream",
        };
        format!(
            "{framing} decode incl. framing, in memory, CPU, {}",
            self.name
        )
    }
}

/// A canned answer and its size on the wire.
pub struct Answer {
    /// Bytes of the body.
    pub len: usize,
    /// The body itself.
    pub body: Vec<u8>,
    response: MockResponse,
}

/// The wires measured (azure-openai-responses replays the openai-responses
/// capture: the same events, its own endpoint and decoder).
pub const WIRES: [Wire; 9] = [
    Wire {
        name: "anthropic-messages",
        api: "anthropic-messages",
        provider: "anthropic",
        captures: "pi-0.73.1",
        capture: "a-text-ant",
        repeated: "a mock model",
        base_path: "",
        api_key: ANY_KEY,
        framing: Framing::Sse,
    },
    Wire {
        name: "openai-completions",
        api: "openai-completions",
        provider: "openai",
        captures: "pi-0.73.1",
        capture: "a-text-oai",
        repeated: "a mock model",
        base_path: "/v1",
        api_key: ANY_KEY,
        framing: Framing::Sse,
    },
    Wire {
        name: "openai-responses",
        api: "openai-responses",
        provider: "openai",
        captures: "pi-0.73.1",
        capture: "a-text-resp",
        repeated: "a mock model",
        base_path: "/v1",
        api_key: ANY_KEY,
        framing: Framing::Sse,
    },
    Wire {
        name: "azure-openai-responses",
        api: "azure-openai-responses",
        provider: "azure-openai-responses",
        captures: "pi-0.73.1",
        capture: "a-text-resp",
        repeated: "a mock model",
        base_path: "/openai/v1",
        api_key: ANY_KEY,
        framing: Framing::Sse,
    },
    Wire {
        name: "google-generative-ai",
        api: "google-generative-ai",
        provider: "google",
        captures: "pi-0.73.1",
        capture: "a-text-goog",
        repeated: "a mock model",
        base_path: "/v1beta",
        api_key: ANY_KEY,
        framing: Framing::Sse,
    },
    Wire {
        name: "mistral-conversations",
        api: "mistral-conversations",
        provider: "mistral",
        captures: "pi-0.73.1-mistral",
        capture: "a-text-mis",
        repeated: "mock ",
        base_path: "",
        api_key: ANY_KEY,
        framing: Framing::Sse,
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
        api_key: ANY_KEY,
        framing: Framing::Sse,
    },
    // openai-responses events behind the ChatGPT backend's URL and headers.
    Wire {
        name: "openai-codex-responses",
        api: "openai-codex-responses",
        provider: "openai-codex",
        captures: "pi-0.73.1-codex",
        capture: "a-text-cdx",
        repeated: "\"delta\":\"mock ",
        base_path: "",
        api_key: CODEX_KEY,
        framing: Framing::Sse,
    },
    Wire {
        name: "bedrock-converse-stream",
        api: "bedrock-converse-stream",
        provider: "amazon-bedrock",
        captures: "pi-0.73.1-bedrock",
        capture: "a-text-bed",
        repeated: "\"mock \"",
        base_path: "",
        api_key: ANY_KEY,
        framing: Framing::EventStream,
    },
];

/// Registers every provider, as the app does. Bedrock's reads its
/// credentials from the environment (`main` makes sure a Bedrock API key is
/// there).
pub fn register_all() {
    pi_providers_anthropic::register();
    pi_providers_openai_completions::register();
    pi_providers_openai_responses::register();
    pi_providers_google::register();
    pi_providers_mistral::register();
    pi_providers_google_vertex::register();
    pi_providers_azure_openai_responses::register();
    pi_providers_openai_codex_responses::register();
    pi_providers_amazon_bedrock::register();
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// The frames pi 0.73.1 was answered with in `wire`'s capture, as SSE text
/// (a capture of an event-stream wire records `[type, payload]` events).
fn recorded_frames(wire: &Wire) -> Vec<String> {
    let path = fixtures()
        .join(wire.captures)
        .join(wire.capture)
        .join("responses.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    if let Some(events) = first["events"].as_array() {
        return events
            .iter()
            .map(|pair| {
                format!(
                    "event: {}\ndata: {}\n\n",
                    pair[0].as_str().unwrap(),
                    pair[1]
                )
            })
            .collect();
    }
    first["sse"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_owned())
        .collect()
}

/// The frames as `wire` sends them.
fn wire_frames(wire: &Wire) -> Vec<Vec<u8>> {
    let frames = recorded_frames(wire);
    match wire.framing {
        Framing::Sse => frames.into_iter().map(String::into_bytes).collect(),
        Framing::EventStream => frames.iter().map(|f| encode_frame(f)).collect(),
    }
}

fn answer(wire: &Wire, body: Vec<u8>) -> Answer {
    let len = body.len();
    let response = match wire.framing {
        Framing::Sse => MockResponse::sse([String::from_utf8(body.clone()).unwrap()]),
        Framing::EventStream => MockResponse::Raw {
            status: 200,
            content_type: "application/vnd.amazon.eventstream".to_owned(),
            body: body.clone(),
        },
    };
    Answer {
        len,
        body,
        response,
    }
}

/// The recorded answer with its middle text delta (the frame holding
/// `wire.repeated`, e.g. "a mock model") repeated until the body has about
/// `bytes` bytes.
pub fn long_answer(wire: &Wire, bytes: usize) -> Answer {
    let at = recorded_frames(wire)
        .iter()
        .position(|f| f.contains(wire.repeated))
        .unwrap();
    let frames = wire_frames(wire);
    let fixed: usize = frames.iter().map(Vec::len).sum();
    let repeat = bytes.saturating_sub(fixed) / frames[at].len() + 1;
    let mut body = Vec::with_capacity(fixed + repeat * frames[at].len());
    for (i, frame) in frames.iter().enumerate() {
        let times = if i == at { repeat } else { 1 };
        for _ in 0..times {
            body.extend_from_slice(frame);
        }
    }
    answer(wire, body)
}

/// The recorded (short) answer as it was.
pub fn short_answer(wire: &Wire) -> Answer {
    answer(wire, wire_frames(wire).concat())
}

fn model(wire: &Wire, server: &MockServer) -> Model {
    model_at(wire, &server.url())
}

/// The wire's model with its base URL at `origin`.
pub fn model_at(wire: &Wire, origin: &str) -> Model {
    serde_json::from_value(json!({
        "id": "mock-model",
        "name": "Mock",
        "api": wire.api,
        "provider": wire.provider,
        "baseUrl": format!("{origin}{}", wire.base_path),
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
/// `answer`; seconds of this thread's CPU and the request body's size. Each
/// run has a mock of its own, started before the clock starts and serving
/// from a thread of its own, so neither the mock's copy of its canned answer
/// nor its writes to the socket are counted: only the client's side (the
/// loopback reads included).
pub fn request(wire: &Wire, messages: &[Message], answer: &Answer, reps: usize) -> (f64, usize) {
    let rt = runtime();
    let mock_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let context = Context {
            system_prompt: Some("You are a benchmark.".to_owned()),
            messages: messages.to_vec(),
            ..Context::default()
        };
        let (mut total, mut runs, mut sent) = (0.0, 0usize, 0);
        while runs < reps || (total < crate::MIN_CPU_SECONDS && runs < 1_000) {
            let response = answer.response.clone();
            let server = mock_rt
                .spawn(MockServer::start([response]))
                .await
                .unwrap()
                .unwrap();
            let model = model(wire, &server);
            let options = StreamOptions {
                api_key: Some(wire.api_key.to_owned()),
                ..StreamOptions::default()
            };
            let start = crate::cpu_seconds();
            let message = pi_ai::complete(&model, &context, options).await;
            total += crate::cpu_seconds() - start;
            runs += 1;
            assert_answered(wire, &message);
            sent = server.requests().last().map_or(0, |r| r.body.len());
        }
        (total / runs as f64, sent)
    })
}

/// Panics (the benchmark is wrong) when the wire ended its answer in an error.
pub fn assert_answered(wire: &Wire, message: &AssistantMessage) {
    assert!(
        message.stop_reason != StopReason::Error,
        "{}: {:?}",
        wire.name,
        message.error_message
    );
}
