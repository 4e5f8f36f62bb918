//! End to end through a real loopback HTTP server: success, tool calls,
//! HTTP errors with retries, cut and unterminated streams, invalid JSON,
//! in-stream errors, cancellation, a missing key, and the registry.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use common::{fixtures, model, summary};
use futures::StreamExt;
use pi_ai::{
    AssistantMessageEvent, CancellationToken, Context, Model, SimpleStreamOptions, StopReason,
    StreamFunction, StreamOptions, ThinkingLevel, Tool, UserMessage,
};
use pi_http::mock_server::{MockResponse, MockServer, RecordedRequest};
use pi_providers_anthropic::simple_to_anthropic;
use pi_providers_anthropic::{AnthropicOptions, AnthropicProvider, build_request_body};
use pretty_assertions::assert_eq;
use serde_json::json;

const KEY: &str = "sk-ant-test-key";

/// The frames of a recorded stream, one string per SSE event.
fn recorded(name: &str) -> Vec<String> {
    let body = std::fs::read_to_string(fixtures("sse/anthropic-messages").join(name)).unwrap();
    body.split_inclusive("\n\n").map(str::to_owned).collect()
}

fn served_model(server: &MockServer) -> Model {
    let mut model = model("claude-test", false);
    model.base_url = server.url();
    model
}

fn context() -> Context {
    Context {
        system_prompt: Some("Be brief.".into()),
        messages: vec![
            UserMessage {
                content: "List the files.".into(),
                timestamp: 1,
                ..UserMessage::default()
            }
            .into(),
        ],
        tools: Some(vec![Tool {
            name: "bash".into(),
            description: "Run a command".into(),
            parameters: json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}),
        }]),
        ..Context::default()
    }
}

fn options() -> StreamOptions {
    StreamOptions {
        api_key: Some(KEY.into()),
        ..StreamOptions::default()
    }
}

async fn run(model: &Model, options: StreamOptions) -> Vec<AssistantMessageEvent> {
    AnthropicProvider::new()
        .stream(model, &context(), options)
        .collect()
        .await
}

fn final_of(events: &[AssistantMessageEvent]) -> &pi_ai::AssistantMessage {
    events.last().unwrap().final_message().unwrap()
}

fn assert_request(request: &RecordedRequest, model: &Model) {
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some(KEY));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("accept"), Some("application/json"));
    assert_eq!(
        request.header("anthropic-beta"),
        Some("interleaved-thinking-2025-05-14")
    );
    let expected = build_request_body(model, &context(), &AnthropicOptions::from(options()));
    assert_eq!(request.json(), serde_json::to_value(expected).unwrap());
}

#[tokio::test]
async fn text_answer_streams_and_the_request_is_what_we_encoded() {
    let server = MockServer::start([MockResponse::sse(recorded("pi-a-text-ant-1.sse"))])
        .await
        .unwrap();
    let model = served_model(&server);
    let events = run(&model, options()).await;
    let kinds: Vec<&str> = events.iter().map(AssistantMessageEvent::kind).collect();
    assert_eq!(
        kinds,
        [
            "start",
            "text_start",
            "text_delta",
            "text_delta",
            "text_delta",
            "text_end",
            "done"
        ]
    );
    let message = final_of(&events);
    assert_eq!(message.text(), "Hello! I am a mock model. 2 + 2 = 4.");
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.response_id.as_deref(), Some("msg_mock0001"));
    assert_eq!((message.usage.input, message.usage.output), (1200, 14));
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_request(&requests[0], &model);
    assert_eq!(requests[0].json()["stream"], json!(true));
}

#[tokio::test]
async fn tool_call_arrives_with_parsed_arguments() {
    let server = MockServer::start([MockResponse::sse(recorded("pi-b-bash-ant-1.sse"))])
        .await
        .unwrap();
    let events = run(&served_model(&server), options()).await;
    let message = final_of(&events);
    assert_eq!(message.stop_reason, StopReason::ToolUse);
    let calls: Vec<_> = message.tool_calls().collect();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].id, "toolu_01A09q90qw90lq917835lq9A");
    assert_eq!(calls[0].name, "bash");
    assert_eq!(calls[0].arguments, json!({"command": "ls"}));
    let ends = events
        .iter()
        .filter(|e| matches!(e, AssistantMessageEvent::ToolCallEnd { .. }))
        .count();
    assert_eq!(ends, 1);
}

#[tokio::test]
async fn http_500_is_retried_then_reported_with_the_provider_text() {
    let body = r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#;
    let server = MockServer::start([MockResponse::json(500, body)])
        .await
        .unwrap();
    let events = run(&served_model(&server), options()).await;
    let kinds: Vec<&str> = events.iter().map(AssistantMessageEvent::kind).collect();
    assert_eq!(
        kinds,
        ["error"],
        "as pi, a refused request never starts the stream"
    );
    let message = final_of(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    // The Anthropic client's wording: the body has no top-level `message`,
    // so the whole body follows the status.
    assert_eq!(
        message.error_message.as_deref(),
        Some(format!("500 {body}").as_str())
    );
    assert!(message.content.is_empty());
    assert_eq!(server.requests().len(), 3, "first attempt + 2 retries");
}

#[tokio::test]
async fn rate_limit_then_success() {
    let limited = MockResponse::Body {
        status: 429,
        headers: vec![("retry-after-ms".into(), "20".into())],
        body: r#"{"type":"error","error":{"type":"rate_limit_error","message":"Slow down"}}"#
            .into(),
    };
    let server = MockServer::start([limited, MockResponse::sse(recorded("pi-a-text-ant-1.sse"))])
        .await
        .unwrap();
    let model = served_model(&server);
    let events = run(&model, options()).await;
    let message = final_of(&events);
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.text(), "Hello! I am a mock model. 2 + 2 = 4.");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].body, requests[1].body,
        "the retry resends the same body"
    );
    assert_request(&requests[1], &model);
}

#[tokio::test]
async fn cut_stream_is_an_error_that_keeps_the_partial_text() {
    let frames: Vec<String> = recorded("pi-a-text-ant-1.sse")
        .into_iter()
        .take(5)
        .collect();
    let server = MockServer::start([MockResponse::CutSse { frames }])
        .await
        .unwrap();
    let events = run(&served_model(&server), options()).await;
    let message = final_of(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(message.text(), "Hello! I am a mock model");
    let error = message.error_message.as_deref().unwrap();
    let named = format!("{}: Stream error", message.provider);
    assert!(error.starts_with(&named), "names the provider: {error}");
}

#[tokio::test]
async fn stream_without_message_stop_is_an_error() {
    let server = MockServer::start([MockResponse::sse(recorded("missing-message-stop.sse"))])
        .await
        .unwrap();
    let events = run(&served_model(&server), options()).await;
    let message = final_of(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("Anthropic stream ended before message_stop")
    );
    assert_eq!(message.text(), "Almost done");
}

#[tokio::test]
async fn invalid_json_and_in_stream_errors_end_the_stream() {
    let server = MockServer::start([
        MockResponse::sse(recorded("invalid-json.sse")),
        MockResponse::sse(recorded("in-stream-error.sse")),
    ])
    .await
    .unwrap();
    let model = served_model(&server);
    let events = run(&model, options()).await;
    let message = final_of(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(message.text(), "Before ");
    let error = message.error_message.as_deref().unwrap();
    assert!(
        error.starts_with("Could not parse Anthropic SSE event content_block_delta: "),
        "{error}"
    );

    let events = run(&model, options()).await;
    let message = final_of(&events);
    assert_eq!(message.text(), "Partial ");
    assert_eq!(
        message.error_message.as_deref(),
        Some(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#)
    );
}

#[tokio::test]
async fn cancel_mid_stream_aborts_and_keeps_the_text() {
    let frames: Vec<String> = recorded("pi-a-text-ant-1.sse")
        .into_iter()
        .take(5)
        .collect();
    let server = MockServer::start([MockResponse::StallSse { frames }])
        .await
        .unwrap();
    let cancel = CancellationToken::new();
    let options = StreamOptions {
        cancel: cancel.clone(),
        ..options()
    };
    let mut stream = AnthropicProvider::new().stream(&served_model(&server), &context(), options);
    let mut events = Vec::new();
    while let Some(event) = tokio::time::timeout(Duration::from_secs(10), stream.next())
        .await
        .unwrap()
    {
        if matches!(&event, AssistantMessageEvent::TextDelta { delta, .. } if delta == "a mock model")
        {
            cancel.cancel();
        }
        events.push(event);
    }
    let message = final_of(&events);
    assert_eq!(message.stop_reason, StopReason::Aborted);
    assert_eq!(
        message.error_message.as_deref(),
        Some("Request was aborted")
    );
    assert_eq!(message.text(), "Hello! I am a mock model");
}

#[tokio::test]
async fn missing_api_key_fails_at_once() {
    let mut model = model("claude-test", false);
    model.provider = pi_ai::Provider::new("no-such-provider");
    model.base_url = "http://127.0.0.1:9".into();
    let events = run(&model, StreamOptions::default()).await;
    let kinds: Vec<&str> = events.iter().map(AssistantMessageEvent::kind).collect();
    assert_eq!(kinds, ["error"]);
    assert_eq!(
        final_of(&events).error_message.as_deref(),
        Some("No API key for provider: no-such-provider")
    );
}

#[tokio::test]
async fn registered_provider_streams_simple_calls_with_thinking() {
    pi_providers_anthropic::register();
    let provider = pi_ai::get_api_provider(&pi_ai::Api::ANTHROPIC_MESSAGES).unwrap();
    let server = MockServer::start([MockResponse::sse(recorded("pi-h-json-thinking-ant-2.sse"))])
        .await
        .unwrap();
    let mut model = served_model(&server);
    model.reasoning = true;
    model.max_tokens = 8192;
    let options = SimpleStreamOptions {
        base: options(),
        reasoning: Some(ThinkingLevel::Medium),
        thinking_budgets: None,
    };
    let events: Vec<_> = provider
        .stream_simple(&model, &context(), options.clone())
        .collect()
        .await;
    insta::assert_json_snapshot!("e2e_simple_thinking", summary(&events));
    let request = &server.requests()[0];
    let expected = build_request_body(&model, &context(), &simple_to_anthropic(&model, options));
    assert_eq!(request.json(), serde_json::to_value(expected).unwrap());
    assert_eq!(
        request.json()["thinking"],
        json!({"type": "enabled", "budget_tokens": 7168, "display": "summarized"})
    );
    assert_eq!(request.json()["max_tokens"], json!(8192));
}
