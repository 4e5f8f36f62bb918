//! End to end through a real loopback server: the request that goes out
//! (path, headers, body) and what comes back for success, tool calls, HTTP
//! errors with retries, cut and stalled streams, bad events and cancellation.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use common::{mock_api_key, mock_model, read_sse};
use futures::StreamExt;
use pi_ai::{
    AssistantMessage, Context, Model, SimpleStreamOptions, StopReason, StreamFunction,
    StreamOptions, UserMessage,
};
use pi_http::mock_server::{MockResponse, MockServer};
use pi_providers_google::{GoogleProvider, build_request_body, simple_options};
use pretty_assertions::assert_eq;
use serde_json::json;

const PATH: &str = "/v1beta/models/mock-gemini:streamGenerateContent?alt=sse";
const GOOGLE_500: &str =
    r#"{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}"#;
const GOOGLE_429: &str = r#"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}"#;

/// pi's mock model, pointed at `server`.
fn model_at(server: &MockServer) -> Model {
    let mut model = mock_model("mock-goog", "mock-gemini");
    model.base_url = format!("{}/v1beta", server.url());
    model
}

fn context() -> Context {
    Context {
        system_prompt: Some("Be brief.".into()),
        messages: vec![
            UserMessage {
                content: "What is 2 + 2? Also say hello.".into(),
                timestamp: 1,
                ..UserMessage::default()
            }
            .into(),
        ],
        ..Context::default()
    }
}

fn options() -> SimpleStreamOptions {
    SimpleStreamOptions {
        base: StreamOptions {
            api_key: Some(mock_api_key("mock-goog")),
            ..StreamOptions::default()
        },
        ..SimpleStreamOptions::default()
    }
}

/// The SSE frames of a recording, one string per event.
fn frames(name: &str) -> Vec<String> {
    read_sse(name)
        .split_inclusive("\n\n")
        .map(str::to_owned)
        .collect()
}

async fn run(server: &MockServer, options: SimpleStreamOptions) -> AssistantMessage {
    GoogleProvider::new()
        .stream_simple(&model_at(server), &context(), options)
        .result()
        .await
}

#[tokio::test]
async fn text_answer_and_the_request_that_went_out() {
    let server = MockServer::start([MockResponse::sse(frames("pi-a-text-goog-1.sse"))])
        .await
        .unwrap();
    let message = run(&server, options()).await;
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.text(), "Hello! I am a mock model. 2 + 2 = 4.");
    assert_eq!(
        (
            message.usage.input,
            message.usage.output,
            message.usage.total_tokens
        ),
        (1200, 14, 1214)
    );
    assert_eq!(message.response_id.as_deref(), Some("mockresp0001"));

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, PATH);
    assert_eq!(
        request.header("x-goog-api-key"),
        Some("mock-google-api-key")
    );
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("authorization"), None);
    let model = model_at(&server);
    let expected = build_request_body(&model, &context(), &simple_options(&model, &options()));
    assert_eq!(request.json(), serde_json::to_value(expected).unwrap());
    assert_eq!(
        request.json(),
        json!({
            "contents": [{"parts": [{"text": "What is 2 + 2? Also say hello."}], "role": "user"}],
            "systemInstruction": {"parts": [{"text": "Be brief."}], "role": "user"},
            "generationConfig": {"maxOutputTokens": 4096}
        })
    );
}

#[tokio::test]
async fn tool_call_answer() {
    let server = MockServer::start([MockResponse::sse(frames("pi-b-bash-goog-1.sse"))])
        .await
        .unwrap();
    let mut stream = GoogleProvider::new().stream_simple(&model_at(&server), &context(), options());
    let mut kinds = Vec::new();
    while let Some(event) = stream.next().await {
        kinds.push(event.kind());
    }
    assert_eq!(
        kinds,
        [
            "start",
            "toolcall_start",
            "toolcall_delta",
            "toolcall_end",
            "done"
        ]
    );
    let message = stream.result().await;
    assert_eq!(message.stop_reason, StopReason::ToolUse);
    let call = message.tool_calls().next().unwrap();
    assert_eq!(
        (call.name.as_str(), &call.arguments),
        ("bash", &json!({"command": "ls"}))
    );
    assert!(call.id.starts_with("bash_"), "{}", call.id);
}

#[tokio::test]
async fn http_500_is_reported_with_the_status_and_the_message() {
    let server = MockServer::start([MockResponse::json(500, GOOGLE_500)])
        .await
        .unwrap();
    let message = run(&server, options()).await;
    assert_eq!(message.stop_reason, StopReason::Error);
    // pi's Google client shows the raw JSON body; pi-rs names the provider
    // and shows the status and `error.message`.
    let expected = format!("{}: 500 Internal error encountered.", message.provider);
    assert_eq!(message.error_message.as_deref(), Some(expected.as_str()));
    assert_eq!(message.error_class, Some(pi_http::ErrorClass::Server));
    assert!(message.content.is_empty());
    assert_eq!(
        server.requests().len(),
        1,
        "pi's Google client has no retry options: the transport sends once"
    );
}

#[tokio::test]
async fn rate_limit_is_reported_without_a_transport_retry() {
    let limited = MockResponse::Body {
        status: 429,
        headers: vec![("retry-after-ms".into(), "20".into())],
        body: GOOGLE_429.into(),
    };
    let server = MockServer::start([limited, MockResponse::sse(frames("pi-a-text-goog-1.sse"))])
        .await
        .unwrap();
    let message = run(&server, options()).await;
    assert_eq!(message.stop_reason, StopReason::Error);
    assert!(
        message.error_message.as_deref().unwrap().contains("429"),
        "{:?}",
        message.error_message
    );
    assert_eq!(
        server.requests().len(),
        1,
        "the app's auto-retry, not the transport, tries again"
    );
}

#[tokio::test]
async fn a_cut_stream_is_an_error_that_keeps_the_text() {
    let mut sent = frames("pi-a-text-goog-1.sse");
    sent.truncate(2);
    let server = MockServer::start([MockResponse::CutSse { frames: sent }])
        .await
        .unwrap();
    let message = run(&server, options()).await;
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(message.text(), "Hello! I am a mock model");
    let error = message.error_message.unwrap();
    let named = format!("{}: Stream error", message.provider);
    assert!(error.starts_with(&named), "names the provider: {error}");
}

#[tokio::test]
async fn a_stream_without_finish_reason_ends_as_a_stop_like_pi() {
    let server = MockServer::start([MockResponse::sse(frames("no-finish-reason.sse"))])
        .await
        .unwrap();
    let message = run(&server, options()).await;
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.error_message, None);
    assert_eq!(message.text(), "The stream ends without a finish reason.");
}

#[tokio::test]
async fn invalid_json_in_an_event_is_an_error() {
    let server = MockServer::start([MockResponse::sse(frames("invalid-json.sse"))])
        .await
        .unwrap();
    let message = run(&server, options()).await;
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(message.text(), "Before the bad event");
    let error = message.error_message.unwrap();
    assert!(
        error.starts_with("Invalid JSON in Google stream event"),
        "{error}"
    );
}

#[tokio::test]
async fn an_error_object_in_the_stream_is_an_error() {
    let server = MockServer::start([MockResponse::sse(frames("in-stream-error.sse"))])
        .await
        .unwrap();
    let message = run(&server, options()).await;
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("503 The model is overloaded. Please try again later.")
    );
    assert_eq!(message.text(), "Partial answer");
}

#[tokio::test]
async fn cancel_mid_stream_is_aborted_and_keeps_the_text() {
    let mut sent = frames("pi-a-text-goog-1.sse");
    sent.truncate(1);
    let server = MockServer::start([MockResponse::StallSse { frames: sent }])
        .await
        .unwrap();
    let options = options();
    let cancel = options.base.cancel.clone();
    let mut stream = GoogleProvider::new().stream_simple(&model_at(&server), &context(), options);
    let mut last = None;
    while let Some(event) = stream.next().await {
        if event.kind() == "text_delta" {
            cancel.cancel();
        }
        last = Some(event);
    }
    let message = last.unwrap().final_message().cloned().unwrap();
    assert_eq!(message.stop_reason, StopReason::Aborted);
    assert_eq!(
        message.error_message.as_deref(),
        Some(pi_ai::ABORTED_MESSAGE)
    );
    assert_eq!(message.text(), "Hello! I am ");
}

#[tokio::test]
async fn a_missing_key_fails_without_a_request() {
    let server = MockServer::start([MockResponse::sse(frames("pi-a-text-goog-1.sse"))])
        .await
        .unwrap();
    let message = run(&server, SimpleStreamOptions::default()).await;
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("No API key for provider: mock-goog")
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn headers_merge_and_the_payload_hook_replaces_the_body() {
    let server = MockServer::start([MockResponse::sse(frames("pi-a-text-goog-1.sse"))])
        .await
        .unwrap();
    let mut model = model_at(&server);
    model.headers = Some(BTreeMap::from([
        ("x-model".to_owned(), "m".to_owned()),
        ("x-both".to_owned(), "model".to_owned()),
    ]));
    let mut options = options();
    options.base.headers = BTreeMap::from([("X-Both".to_owned(), "call".to_owned())]);
    options.base.on_payload = Some(Arc::new(|body, _| {
        let mut body = body.clone();
        body["generationConfig"]["temperature"] = json!(0.25);
        Some(body)
    }));
    let message = GoogleProvider::new()
        .stream_simple(&model, &context(), options)
        .result()
        .await;
    assert_eq!(message.stop_reason, StopReason::Stop);
    let request = &server.requests()[0];
    assert_eq!(request.header("x-model"), Some("m"));
    assert_eq!(request.header("x-both"), Some("call"));
    assert_eq!(
        request
            .headers
            .iter()
            .filter(|(n, _)| n == "x-both")
            .count(),
        1
    );
    assert_eq!(
        request.json()["generationConfig"],
        json!({"maxOutputTokens": 4096, "temperature": 0.25})
    );
}

#[tokio::test]
async fn register_puts_the_provider_in_the_global_registry() {
    pi_providers_google::register();
    let provider = pi_ai::get_api_provider(&pi_ai::Api::GOOGLE_GENERATIVE_AI);
    assert!(provider.is_some());
    let server = MockServer::start([MockResponse::sse(frames("pi-a-text-goog-1.sse"))])
        .await
        .unwrap();
    let message = pi_ai::complete_simple(&model_at(&server), &context(), options()).await;
    assert_eq!(message.text(), "Hello! I am a mock model. 2 + 2 = 4.");
}
