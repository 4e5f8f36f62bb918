//! End to end through a real loopback HTTP server: the shared scenarios of
//! `pi-test-support` (text, tool call, 500 and 429 with pi's Codex retries,
//! cut and cancelled streams, missing key, header merge, registration,
//! stream endings, reasoning) with this wire's adapter, and a token without
//! an account id failing before any request.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use futures::StreamExt;
use pi_ai::{Api, Model, StopReason, StreamFunction, ThinkingLevel};
use pi_providers_openai_codex_responses::{OpenAiCodexProvider, OpenAiCodexWire};
use pi_test_support::e2e::{
    self, CallId, Ending, EofCase, ErrorText, PartialCase, ServerErrorCase, TextCase, ThinkingCase,
    ToolCallCase, WireAdapter,
};
use pi_test_support::final_message;
use pi_test_support::mock_server::{MockResponse, MockServer};
use pretty_assertions::assert_eq;
use serde_json::json;

const SERVER_ERROR: &str = r#"{"error":{"message":"An error occurred while processing your request.","type":"server_error","code":null}}"#;

fn served(url: &str) -> Model {
    common::CAPTURES.model_at("mock-cdx", url)
}

fn served_think(url: &str) -> Model {
    common::CAPTURES.model_at("mock-cdx-think", url)
}

fn adapter() -> WireAdapter {
    WireAdapter {
        api: Api::OPENAI_CODEX_RESPONSES,
        register: pi_providers_openai_codex_responses::register,
        sse_dir: "openai-codex-responses",
        model: served,
        api_key: common::CAPTURES.api_key(),
        auth_header: "authorization",
        auth_prefix: "Bearer ",
        path: "/codex/responses",
        headers: vec![
            ("content-type", Some("application/json")),
            ("accept", Some("text/event-stream")),
            ("chatgpt-account-id", Some("acc-mock-0001")),
            ("originator", Some("pi")),
            ("openai-beta", Some("responses=experimental")),
            ("session_id", Some(e2e::SESSION_ID)),
            ("x-client-request-id", Some(e2e::SESSION_ID)),
        ],
        encode: e2e::wire_body::<OpenAiCodexWire>,
        text: TextCase {
            file: "a-text-cdx-1.sse",
            kinds: None,
            text: "Hello! I am a mock model. 2 + 2 = 4.",
            response_id: Some("resp_mock0001"),
            usage: (1000, 14, 1214),
            body: vec![
                ("/store", json!(false)),
                ("/text", json!({"verbosity": "low"})),
                ("/prompt_cache_key", json!(e2e::SESSION_ID)),
            ],
        },
        partial: PartialCase {
            frames: 6,
            text: "Hello! I ",
        },
        tool_call: ToolCallCase {
            file: "b-bash-cdx-1.sse",
            kinds: None,
            id: CallId::Exact("call_Rp4nQ8wE2rT6yU0iO3pA5sD7|fc_mock0001_1"),
            name: "bash",
            arguments: json!({"command": "ls"}),
        },
        server_error: ServerErrorCase {
            body: SERVER_ERROR,
            message: "An error occurred while processing your request.".into(),
            attempts: 4,
        },
        rate_limit_body: r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#,
        endings: vec![
            Ending {
                file: "response-done.sse",
                frames: None,
                stop: StopReason::Stop,
                text: Some("Done via response.done."),
                error: ErrorText::None,
                total_tokens: Some(110),
            },
            Ending {
                file: "no-terminal-event.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("The body just ends"),
                error: ErrorText::Exact("mock-cdx: Stream ended without response.completed"),
                total_tokens: Some(0),
            },
            Ending {
                file: "codex-error-event.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Some text"),
                error: ErrorText::Exact(
                    "Codex error: Your input exceeds the context window of this model.",
                ),
                total_tokens: None,
            },
            Ending {
                file: "codex-failed.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Partial"),
                error: ErrorText::Exact("The model failed to answer."),
                total_tokens: None,
            },
            Ending {
                file: "invalid-json.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Before the bad frame"),
                error: ErrorText::Prefix("Invalid Codex SSE JSON: "),
                total_tokens: None,
            },
            Ending {
                file: "untyped-frames-skipped.sse",
                frames: None,
                stop: StopReason::Stop,
                text: Some("Frames without a type are skipped."),
                error: ErrorText::None,
                total_tokens: Some(110),
            },
        ],
        // A recorded answer cut just before its terminal event: an error
        // (pi 0.73.1 calls it complete; see docs/payload-differences.md).
        eof: EofCase {
            file: "eof-before-terminal-event.sse",
            text: "Hello! I am a mock model. 2 + 2 = 4.",
            error: "mock-cdx: Stream ended without response.completed",
        },
        thinking: ThinkingCase {
            file: "t-think-cdx-1.sse",
            model: served_think,
            reasoning: ThinkingLevel::High,
            body: vec![
                ("/reasoning", json!({"effort": "high", "summary": "auto"})),
                ("/include", json!(["reasoning.encrypted_content"])),
                ("/instructions", json!("Be brief.")),
            ],
            check: None,
        },
    }
}

pi_test_support::wire_e2e_suite!(adapter());

/// A key that is not a ChatGPT token fails before any request, as in pi.
#[tokio::test]
async fn a_key_without_account_id_fails_before_sending() {
    let server = MockServer::start([MockResponse::sse(Vec::<String>::new())])
        .await
        .unwrap();
    let model = served(&server.url());
    let mut options = e2e::options(&adapter());
    options.base.api_key = Some("sk-not-a-jwt".into());
    let events: Vec<_> = OpenAiCodexProvider::new()
        .stream_simple(&model, e2e::context().view(), options)
        .collect()
        .await;
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("Failed to extract accountId from token")
    );
    assert!(server.requests().is_empty());
}

/// pi's headers win over the model's and the call's.
#[tokio::test]
async fn pis_headers_override_model_headers() {
    let request = e2e::request_for(&adapter(), |model| {
        model.headers = Some(
            [
                ("originator".to_owned(), "other".to_owned()),
                ("x-extra".to_owned(), "kept".to_owned()),
            ]
            .into(),
        );
    })
    .await;
    assert_eq!(request.header("originator"), Some("pi"));
    assert_eq!(request.header("x-extra"), Some("kept"));
}
