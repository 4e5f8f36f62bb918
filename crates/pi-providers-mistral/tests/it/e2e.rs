//! End to end over real loopback HTTP: the shared scenarios of
//! `pi-test-support` (text, tool call, 500 and 429 without retries as pi's
//! SDK call, cut and cancelled streams, missing key, header merge,
//! registration, stream endings, reasoning) with this wire's adapter, and
//! the `x-affinity` session header.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use pi_ai::{Api, Model, StopReason, ThinkingLevel};
use pi_providers_mistral::MistralWire;
use pi_test_support::e2e::{
    self, CallId, Ending, EofCase, ErrorText, PartialCase, ServerErrorCase, TextCase, ThinkingCase,
    ToolCallCase, WireAdapter,
};
use pretty_assertions::assert_eq;
use serde_json::json;

const MISTRAL_500: &str = r#"{"object":"error","message":"Service unavailable.","type":"internal_server_error","param":null,"code":"3000"}"#;

fn served(url: &str) -> Model {
    common::CAPTURES.model_at("mock-mistral", url)
}

fn served_magistral(url: &str) -> Model {
    common::CAPTURES.model_at("mock-magistral", url)
}

fn adapter() -> WireAdapter {
    WireAdapter {
        api: Api::MISTRAL_CONVERSATIONS,
        register: pi_providers_mistral::register,
        sse_dir: "mistral-conversations",
        model: served,
        api_key: "mistral-test-key".into(),
        auth_header: "authorization",
        auth_prefix: "Bearer ",
        path: "/v1/chat/completions",
        headers: vec![
            ("content-type", Some("application/json")),
            ("accept", Some("text/event-stream")),
            ("x-affinity", Some(e2e::SESSION_ID)),
        ],
        encode: e2e::wire_body::<MistralWire>,
        text: TextCase {
            file: "a-text-mis-1.sse",
            kinds: None,
            text: "Hello! I am a mock model. 2 + 2 = 4.",
            response_id: Some("cmpl-mock0001"),
            usage: (1200, 14, 1214),
            body: vec![("/max_tokens", json!(4096)), ("/stream", json!(true))],
        },
        partial: PartialCase {
            frames: 4,
            text: "Hello! I am ",
        },
        tool_call: ToolCallCase {
            file: "b-bash-mis-1.sse",
            kinds: None,
            id: CallId::Exact("Ab3dE5gH7"),
            name: "bash",
            arguments: json!({"command": "ls"}),
        },
        server_error: ServerErrorCase {
            body: MISTRAL_500,
            message: format!("Mistral API error (500): {MISTRAL_500}"),
            attempts: 1,
        },
        rate_limit_body: r#"{"object":"error","message":"Requests rate limit exceeded","type":"rate_limited"}"#,
        endings: vec![
            Ending {
                file: "done-without-finish-reason.sse",
                frames: None,
                stop: StopReason::Stop,
                text: Some("A server that never says why it stopped."),
                error: ErrorText::None,
                total_tokens: None,
            },
            Ending {
                file: "no-finish-reason.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("The body ends mid-answer"),
                error: ErrorText::Exact("Stream ended without finish_reason"),
                total_tokens: None,
            },
            Ending {
                file: "no-done-after-finish.sse",
                frames: None,
                stop: StopReason::Stop,
                text: Some("Done without the DONE line."),
                error: ErrorText::None,
                total_tokens: Some(42),
            },
            Ending {
                file: "finish-error.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Something went"),
                error: ErrorText::Exact("An unknown error occurred"),
                total_tokens: None,
            },
            Ending {
                file: "invalid-json.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Before the bad chunk"),
                error: ErrorText::Prefix("Could not parse stream chunk as JSON: "),
                total_tokens: None,
            },
        ],
        // A recorded answer cut just before its terminal event: an error
        // (pi 0.73.1 calls it complete; see docs/payload-differences.md).
        eof: EofCase {
            file: "eof-before-terminal-event.sse",
            text: "Hello! I am a mock model. 2 + 2 = 4.",
            error: "Stream ended without finish_reason",
        },
        thinking: ThinkingCase {
            file: "t-think-mis-2.sse",
            model: served_magistral,
            reasoning: ThinkingLevel::High,
            body: vec![("/prompt_mode", json!("reasoning"))],
            check: None,
        },
    }
}

pi_test_support::wire_e2e_suite!(adapter());

/// pi sends Copilot's dynamic headers only on the anthropic, completions and responses wires.
#[tokio::test]
async fn copilot_headers_follow_the_provider() {
    pi_test_support::e2e::copilot_headers_follow_the_provider(&adapter(), false).await;
}

/// An `x-affinity` header of the caller wins over the session id.
#[tokio::test]
async fn callers_x_affinity_header_wins() {
    let request = e2e::request_for(&adapter(), |model| {
        model.headers = Some([("x-affinity".to_owned(), "pinned".to_owned())].into());
    })
    .await;
    assert_eq!(request.header("x-affinity"), Some("pinned"));
}
