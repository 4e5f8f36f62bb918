//! End to end over real loopback HTTP: the shared scenarios of
//! `pi-test-support` (text, tool call, 500 and 429 with retries, cut and
//! cancelled streams, missing key, header merge, registration, stream
//! endings, reasoning) with this wire's adapter, and the session headers
//! this wire sends when the model's compat asks for them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use pi_ai::{Api, Model, StopReason, ThinkingLevel};
use pi_providers_openai_completions::OpenAiCompletionsWire;
use pi_test_support::e2e::{
    self, CallId, Ending, EofCase, ErrorText, PartialCase, ServerErrorCase, TextCase, ThinkingCase,
    ToolCallCase, WireAdapter,
};
use pretty_assertions::assert_eq;
use serde_json::json;

const OPENAI_500: &str = r#"{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}"#;

fn served(url: &str) -> Model {
    Model {
        base_url: format!("{url}/v1"),
        ..common::model("mock-gpt", false, false)
    }
}

fn adapter() -> WireAdapter {
    WireAdapter {
        api: Api::OPENAI_COMPLETIONS,
        register: pi_providers_openai_completions::register,
        sse_dir: "openai-completions",
        model: served,
        api_key: "sk-test-completions".into(),
        auth_header: "authorization",
        auth_prefix: "Bearer ",
        path: "/v1/chat/completions",
        headers: vec![
            ("content-type", Some("application/json")),
            ("accept", Some("application/json")),
            ("session_id", None),
            ("x-session-affinity", None),
        ],
        encode: e2e::wire_body::<OpenAiCompletionsWire>,
        text: TextCase {
            file: "a-text-oai-1.sse",
            kinds: None,
            text: "Hello! I am a mock model. 2 + 2 = 4.",
            response_id: Some("chatcmpl-mock0001"),
            usage: (1200, 14, 1214),
            body: vec![
                ("/max_completion_tokens", json!(4096)),
                ("/stream", json!(true)),
            ],
        },
        partial: PartialCase {
            frames: 3,
            text: "Hello! I am a mock model",
        },
        tool_call: ToolCallCase {
            file: "c-read-edit-oai-2.sse",
            kinds: None,
            id: CallId::Exact("call_Hj7kL2mN5bV8cX1zQ4wE6rT9"),
            name: "edit",
            arguments: json!({"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]}),
        },
        server_error: ServerErrorCase {
            body: OPENAI_500,
            message: "500 The server had an error while processing your request. Sorry about that!"
                .into(),
            attempts: 3,
        },
        rate_limit_body: r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#,
        endings: vec![
            // `[DONE]` without a finish reason is a stop (pi 0.73.1's reading).
            Ending {
                file: "done-without-finish-reason.sse",
                frames: None,
                stop: StopReason::Stop,
                text: Some("A local server that never says why it stopped."),
                error: ErrorText::None,
                total_tokens: None,
            },
            // A body that ends with neither is an error (pi would call it a
            // stop too: see docs/payload-differences.md).
            Ending {
                file: "no-finish-reason.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("The body ends mid-answer"),
                error: ErrorText::Exact("mock-oai: Stream ended without finish_reason"),
                total_tokens: None,
            },
            // After a finish_reason the missing [DONE] does not matter.
            Ending {
                file: "no-done-after-finish.sse",
                frames: None,
                stop: StopReason::Stop,
                text: Some("Done without the DONE line."),
                error: ErrorText::None,
                total_tokens: None,
            },
            Ending {
                file: "invalid-json.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Before the bad chunk"),
                error: ErrorText::Prefix("mock-oai: Could not parse stream chunk as JSON: "),
                total_tokens: None,
            },
        ],
        // A recorded answer cut just before its terminal event: an error
        // (pi 0.73.1 calls it complete; see docs/payload-differences.md).
        eof: EofCase {
            file: "eof-before-terminal-event.sse",
            text: "Hello! I am a mock model. 2 + 2 = 4.",
            error: "mock-oai: Stream ended without finish_reason",
        },
        thinking: ThinkingCase {
            file: "thinking-reasoning-content.sse",
            model: served,
            reasoning: ThinkingLevel::Low,
            body: vec![
                ("/reasoning_effort", json!("low")),
                ("/messages/0/role", json!("developer")),
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

/// With `compat.sendSessionAffinityHeaders` the session id also goes out as
/// `session_id` and `x-session-affinity`.
#[tokio::test]
async fn session_affinity_headers_follow_the_compat_switch() {
    let request = e2e::request_for(&adapter(), |model| {
        model.compat = Some(json!({"sendSessionAffinityHeaders": true}));
    })
    .await;
    assert_eq!(request.header("session_id"), Some(e2e::SESSION_ID));
    assert_eq!(request.header("x-session-affinity"), Some(e2e::SESSION_ID));
}
