//! End to end through a real loopback server, API-key mode: the shared
//! scenarios of `pi-test-support` (text, tool call, 500 and 429 reported
//! without a transport retry, cut and cancelled streams, header merge and
//! payload hook, registration, stream endings, thinking) with this wire's
//! adapter. The shared missing-key scenario does not apply: without a key
//! Vertex uses Application Default Credentials, whose failures are tested
//! in `token_flow.rs` (`missing_project_location_or_credentials_are_named`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use pi_ai::{Api, Model, StopReason, ThinkingLevel};
use pi_providers_google_vertex::VertexWire;
use pi_test_support::e2e::{
    self, CallId, Ending, EofCase, ErrorText, PartialCase, ServerErrorCase, TextCase, ThinkingCase,
    ToolCallCase, WireAdapter,
};
use pi_test_support::fixtures::rebase;
use serde_json::json;

const GOOGLE_500: &str =
    r#"{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}"#;

fn served(url: &str) -> Model {
    let mut model = common::CAPTURES.model("mock-vtx", "mock-vertex");
    model.base_url = rebase(&model.base_url, url);
    model
}

fn adapter() -> WireAdapter {
    WireAdapter {
        api: Api::GOOGLE_VERTEX,
        register: pi_providers_google_vertex::register,
        sse_dir: "google-vertex",
        model: served,
        api_key: common::CAPTURES.api_key("mock-vtx"),
        auth_header: "x-goog-api-key",
        auth_prefix: "",
        path: "/v1/publishers/google/models/mock-vertex:streamGenerateContent?alt=sse",
        headers: vec![
            ("content-type", Some("application/json")),
            ("authorization", None),
        ],
        encode: e2e::wire_body::<VertexWire>,
        text: TextCase {
            file: "pi-a-text-vtx-1.sse",
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
            frames: 1,
            text: "Hello! I am a mock",
        },
        tool_call: ToolCallCase {
            file: "pi-b-bash-vtx-1.sse",
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
        // pi's Google SDK shows the raw JSON body; pi-rs names the provider
        // and shows the status and `error.message` (as for the Gemini API).
        // The client has no retry options: the transport sends once.
        server_error: ServerErrorCase {
            body: GOOGLE_500,
            message: "mock-vtx: 500 Internal error encountered.".into(),
            attempts: 1,
        },
        rate_limit_body: r#"{"error":{"code":429,"message":"Resource exhausted. Please try again later.","status":"RESOURCE_EXHAUSTED"}}"#,
        endings: vec![
            Ending {
                file: "no-finish-reason.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("The stream ends without a finish reason."),
                error: ErrorText::Exact("mock-vtx: Stream ended without finishReason"),
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
            text: "Hello! I am a mock",
            error: "mock-vtx: Stream ended without finishReason",
        },
        // A model id outside pi's budget tables: dynamic (-1). Vertex's own
        // table is checked against pi's capture in `parity.rs` (t-think-vtx).
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

pi_test_support::wire_e2e_suite!(@tests adapter();
    text_answer_and_the_request_sent,
    tool_call_answer,
    server_error_is_retried_as_the_wire_does_then_reported,
    rate_limit_is_retried_as_the_wire_does,
    cut_stream_is_an_error_that_keeps_the_partial_text,
    cancel_mid_stream_is_aborted_and_keeps_the_text,
    headers_merge_and_the_payload_hook_replaces_the_body,
    the_response_hook_sees_each_answer,
    registered_in_the_global_registry,
    streams_end_as_the_wire_says,
    eof_before_the_terminal_event_is_an_error,
    reasoning_call_maps_the_level,
    a_cross_origin_redirect_drops_the_key,
);
