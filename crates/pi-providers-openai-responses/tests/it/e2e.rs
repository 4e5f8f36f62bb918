//! End to end through a real loopback HTTP server: the shared scenarios of
//! `pi-test-support` (text, tool call, 500 and 429 with retries, cut and
//! cancelled streams, missing key, header merge, registration, stream
//! endings, reasoning) with this wire's adapter, and the session header
//! switch of this wire's compat.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use pi_ai::{Api, Model, StopReason, ThinkingLevel};
use pi_providers_openai_responses::OpenAiResponsesWire;
use pi_test_support::e2e::{
    self, CallId, Ending, EofCase, ErrorText, PartialCase, ServerErrorCase, TextCase, ThinkingCase,
    ToolCallCase, WireAdapter,
};
use pi_test_support::fixtures::mock_model_at;
use pretty_assertions::assert_eq;
use serde_json::json;

const SERVER_ERROR: &str = r#"{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}"#;

fn served(url: &str) -> Model {
    mock_model_at("mock-resp", "mock-resp", url)
}

fn served_gpt5_mini(url: &str) -> Model {
    Model {
        base_url: format!("{url}/v1/"),
        ..common::gpt5_mini()
    }
}

fn adapter() -> WireAdapter {
    WireAdapter {
        api: Api::OPENAI_RESPONSES,
        register: pi_providers_openai_responses::register,
        sse_dir: "openai-responses",
        model: served,
        api_key: "sk-test-key".into(),
        auth_header: "authorization",
        auth_prefix: "Bearer ",
        path: "/v1/responses",
        headers: vec![
            ("content-type", Some("application/json")),
            ("accept", Some("application/json")),
            ("session_id", Some(e2e::SESSION_ID)),
            ("x-client-request-id", Some(e2e::SESSION_ID)),
        ],
        encode: e2e::wire_body::<OpenAiResponsesWire>,
        text: TextCase {
            file: "a-text-resp-1.sse",
            kinds: Some(vec![
                "start",
                "text_start",
                "text_delta",
                "text_delta",
                "text_delta",
                "text_end",
                "done",
            ]),
            text: "Hello! I am a mock model. 2 + 2 = 4.",
            response_id: Some("resp_mock0001"),
            usage: (1200, 14, 1214),
            body: vec![(
                "/input/0",
                json!({"role": "system", "content": "Be brief."}),
            )],
        },
        partial: PartialCase {
            frames: 6,
            text: "Hello! I am a mock model",
        },
        tool_call: ToolCallCase {
            file: "b-bash-resp-1.sse",
            kinds: None,
            id: CallId::Exact("call_Rp4nQ8wE2rT6yU0iO3pA5sD7|fc_mock0001_0"),
            name: "bash",
            arguments: json!({"command": "ls"}),
        },
        server_error: ServerErrorCase {
            body: SERVER_ERROR,
            message: "500 The server had an error while processing your request.".into(),
            attempts: 3,
        },
        rate_limit_body: r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#,
        endings: vec![
            // A body that ends mid-answer without `response.completed` is an
            // error keeping the text (pi treats it as done).
            Ending {
                file: "a-text-resp-1.sse",
                frames: Some(6),
                stop: StopReason::Error,
                text: Some("Hello! I am a mock model"),
                error: ErrorText::Exact("mock-resp: Stream ended without response.completed"),
                total_tokens: Some(0),
            },
            // `data: [DONE]` without a terminal event: a stop, as pi.
            Ending {
                file: "done-without-terminal-event.sse",
                frames: None,
                stop: StopReason::Stop,
                text: Some("The server says it is done"),
                error: ErrorText::None,
                total_tokens: Some(0),
            },
            Ending {
                file: "invalid-json.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Before the bad frame"),
                error: ErrorText::Prefix("Invalid openai-responses stream event"),
                total_tokens: None,
            },
            Ending {
                file: "failed.sse",
                frames: None,
                stop: StopReason::Error,
                text: None,
                error: ErrorText::Exact("server_error: The model failed to generate a response."),
                total_tokens: None,
            },
        ],
        // A recorded answer cut just before its terminal event: an error
        // (pi 0.73.1 calls it complete; see docs/payload-differences.md).
        eof: EofCase {
            file: "eof-before-terminal-event.sse",
            text: "Hello! I am a mock model. 2 + 2 = 4.",
            error: "mock-resp: Stream ended without response.completed",
        },
        thinking: ThinkingCase {
            file: "reasoning-summary.sse",
            model: served_gpt5_mini,
            reasoning: ThinkingLevel::Xhigh,
            body: vec![
                ("/max_output_tokens", json!(32000)),
                ("/reasoning", json!({"effort": "high", "summary": "auto"})),
                ("/include", json!(["reasoning.encrypted_content"])),
                ("/input/0/role", json!("developer")),
            ],
            check: None,
        },
    }
}

pi_test_support::wire_e2e_suite!(adapter());

/// Copilot models get Copilot's dynamic headers, as in pi.
#[tokio::test]
async fn copilot_headers_follow_the_provider() {
    pi_test_support::e2e::copilot_headers_follow_the_provider(&adapter(), true).await;
}

/// `compat.sendSessionIdHeader: false` drops `session_id` but keeps
/// `x-client-request-id`.
#[tokio::test]
async fn the_session_id_header_follows_the_compat_switch() {
    let request = e2e::request_for(&adapter(), |model| {
        model.compat = Some(json!({"sendSessionIdHeader": false}));
    })
    .await;
    assert_eq!(request.header("session_id"), None);
    assert_eq!(request.header("x-client-request-id"), Some(e2e::SESSION_ID));
}
