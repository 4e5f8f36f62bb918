//! End to end through a real loopback HTTP server: the shared scenarios of
//! `pi-test-support` (text, tool call, 500 and 429 with retries, cut and
//! cancelled streams, missing key, header merge, registration, stream
//! endings, thinking) with this wire's adapter.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use pi_ai::{Api, AssistantMessageEvent, Model, StopReason, ThinkingLevel};
use pi_providers_anthropic::AnthropicWire;
use pi_test_support::e2e::{
    self, CallId, Ending, EofCase, ErrorText, PartialCase, ServerErrorCase, TextCase, ThinkingCase,
    ToolCallCase, WireAdapter,
};
use pi_test_support::summary::stream_summary;
use serde_json::json;

const SERVER_ERROR: &str =
    r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#;

fn served(url: &str) -> Model {
    Model {
        base_url: url.to_owned(),
        ..common::model("claude-test", false)
    }
}

fn served_thinking(url: &str) -> Model {
    Model {
        reasoning: true,
        max_tokens: 8192,
        ..served(url)
    }
}

fn thinking_snapshot(events: &[AssistantMessageEvent]) {
    insta::assert_json_snapshot!("e2e_simple_thinking", stream_summary(events));
}

fn adapter() -> WireAdapter {
    WireAdapter {
        api: Api::ANTHROPIC_MESSAGES,
        register: pi_providers_anthropic::register,
        sse_dir: "anthropic-messages",
        model: served,
        api_key: "sk-ant-test-key".into(),
        auth_header: "x-api-key",
        auth_prefix: "",
        path: "/v1/messages",
        headers: vec![
            ("anthropic-version", Some("2023-06-01")),
            ("content-type", Some("application/json")),
            ("accept", Some("application/json")),
            ("anthropic-beta", Some("interleaved-thinking-2025-05-14")),
            ("authorization", None),
            ("x-session-affinity", None),
        ],
        encode: e2e::wire_body::<AnthropicWire>,
        text: TextCase {
            file: "pi-a-text-ant-1.sse",
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
            response_id: Some("msg_mock0001"),
            usage: (1200, 14, 1214),
            body: vec![("/stream", json!(true))],
        },
        partial: PartialCase {
            frames: 5,
            text: "Hello! I am a mock model",
        },
        tool_call: ToolCallCase {
            file: "pi-b-bash-ant-1.sse",
            kinds: None,
            id: CallId::Exact("toolu_01A09q90qw90lq917835lq9A"),
            name: "bash",
            arguments: json!({"command": "ls"}),
        },
        // The Anthropic client's wording: the body has no top-level
        // `message`, so the whole body follows the status.
        server_error: ServerErrorCase {
            body: SERVER_ERROR,
            message: format!("500 {SERVER_ERROR}"),
            attempts: 3,
        },
        rate_limit_body: r#"{"type":"error","error":{"type":"rate_limit_error","message":"Slow down"}}"#,
        endings: vec![
            Ending {
                file: "missing-message-stop.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Almost done"),
                error: ErrorText::Exact("Anthropic stream ended without message_stop"),
                total_tokens: None,
            },
            Ending {
                file: "invalid-json.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Before "),
                error: ErrorText::Prefix(
                    "Could not parse Anthropic SSE event content_block_delta: ",
                ),
                total_tokens: None,
            },
            Ending {
                file: "in-stream-error.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Partial "),
                error: ErrorText::Exact(
                    r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
                ),
                total_tokens: None,
            },
        ],
        // A recorded answer cut just before its terminal event: an error
        // (pi 0.73.1 calls it complete; see docs/payload-differences.md).
        eof: EofCase {
            file: "eof-before-terminal-event.sse",
            text: "Hello! I am a mock model. 2 + 2 = 4.",
            error: "Anthropic stream ended without message_stop",
        },
        thinking: ThinkingCase {
            file: "pi-h-json-thinking-ant-2.sse",
            model: served_thinking,
            reasoning: ThinkingLevel::Medium,
            body: vec![
                (
                    "/thinking",
                    json!({"type": "enabled", "budget_tokens": 7168, "display": "summarized"}),
                ),
                ("/max_tokens", json!(8192)),
            ],
            check: Some(thinking_snapshot),
        },
    }
}

pi_test_support::wire_e2e_suite!(adapter());

/// Copilot models get Copilot's dynamic headers, as in pi.
#[tokio::test]
async fn copilot_headers_follow_the_provider() {
    pi_test_support::e2e::copilot_headers_follow_the_provider(&adapter(), true).await;
}
