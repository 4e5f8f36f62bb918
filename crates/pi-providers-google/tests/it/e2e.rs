//! End to end through a real loopback server: the shared scenarios of
//! `pi-test-support` (text, tool call, 500 and 429 reported without a
//! transport retry, cut and cancelled streams, missing key, header merge,
//! registration, stream endings, thinking) with this wire's adapter.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pi_ai::{Api, Model, StopReason, ThinkingLevel};
use pi_providers_google::GoogleWire;
use pi_test_support::e2e::{
    self, CallId, Ending, EofCase, ErrorText, PartialCase, ServerErrorCase, TextCase, ThinkingCase,
    ToolCallCase, WireAdapter,
};
use pi_test_support::fixtures::{mock_api_key, mock_model_at};
use serde_json::json;

const GOOGLE_500: &str =
    r#"{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}"#;

fn served(url: &str) -> Model {
    mock_model_at("mock-goog", "mock-gemini", url)
}

fn adapter() -> WireAdapter {
    WireAdapter {
        api: Api::GOOGLE_GENERATIVE_AI,
        register: pi_providers_google::register,
        sse_dir: "google-generative-ai",
        model: served,
        api_key: mock_api_key("mock-goog"),
        auth_header: "x-goog-api-key",
        auth_prefix: "",
        path: "/v1beta/models/mock-gemini:streamGenerateContent?alt=sse",
        headers: vec![
            ("content-type", Some("application/json")),
            ("authorization", None),
        ],
        encode: e2e::wire_body::<GoogleWire>,
        text: TextCase {
            file: "pi-a-text-goog-1.sse",
            kinds: None,
            text: "Hello! I am a mock model. 2 + 2 = 4.",
            response_id: Some("mockresp0001"),
            usage: (1200, 14, 1214),
            body: vec![
                (
                    "/contents",
                    json!([{"parts": [{"text": "What is 2 + 2? Also say hello."}], "role": "user"}]),
                ),
                (
                    "/systemInstruction",
                    json!({"parts": [{"text": "Be brief."}], "role": "user"}),
                ),
                ("/generationConfig", json!({"maxOutputTokens": 4096})),
            ],
        },
        partial: PartialCase {
            frames: 2,
            text: "Hello! I am a mock model",
        },
        tool_call: ToolCallCase {
            file: "pi-b-bash-goog-1.sse",
            kinds: Some(vec![
                "start",
                "toolcall_start",
                "toolcall_delta",
                "toolcall_end",
                "done",
            ]),
            id: CallId::Prefix("bash_"),
            name: "bash",
            arguments: json!({"command": "ls"}),
        },
        // pi's Google client shows the raw JSON body; pi-rs names the
        // provider and shows the status and `error.message`. The client has
        // no retry options: the transport sends once.
        server_error: ServerErrorCase {
            body: GOOGLE_500,
            message: "mock-goog: 500 Internal error encountered.".into(),
            attempts: 1,
        },
        rate_limit_body: r#"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}"#,
        endings: vec![
            // A stream without any finish reason is an error keeping the text
            // (pi reads it as a stop).
            Ending {
                file: "no-finish-reason.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("The stream ends without a finish reason."),
                error: ErrorText::Exact("mock-goog: Stream ended without finishReason"),
                total_tokens: None,
            },
            Ending {
                file: "invalid-json.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Before the bad event"),
                error: ErrorText::Prefix("Invalid JSON in Google stream event"),
                total_tokens: None,
            },
            Ending {
                file: "in-stream-error.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Partial answer"),
                error: ErrorText::Exact("503 The model is overloaded. Please try again later."),
                total_tokens: None,
            },
        ],
        // A recorded answer cut just before its terminal event: an error
        // (pi 0.73.1 calls it complete; see docs/payload-differences.md).
        eof: EofCase {
            file: "eof-before-terminal-event.sse",
            text: "Hello! I am a mock model",
            error: "mock-goog: Stream ended without finishReason",
        },
        thinking: ThinkingCase {
            file: "thinking-then-text.sse",
            model: served,
            reasoning: ThinkingLevel::Medium,
            body: vec![(
                "/generationConfig/thinkingConfig",
                json!({"includeThoughts": true, "thinkingBudget": -1}),
            )],
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
