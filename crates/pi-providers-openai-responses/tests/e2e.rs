//! End to end through a real loopback HTTP server: success, tool call,
//! retries, HTTP errors, broken streams, cancellation, and the request the
//! server received.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{assert_well_formed, final_message, mock_resp, split_frames, sse_dir};
use futures::StreamExt;
use pi_ai::{
    AssistantMessageEvent, CancellationToken, Context, ErrorReason, Message, Model,
    SimpleStreamOptions, StopReason, StreamFunction, StreamOptions, ThinkingLevel,
};
use pi_http::RetryPolicy;
use pi_http::mock_server::{MockResponse, MockServer, RecordedRequest};
use pi_providers_openai_responses::{
    OpenAiResponsesOptions, OpenAiResponsesProvider, build_request_body,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const KEY: &str = "sk-test-key";
const SERVER_ERROR: &str = r#"{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}"#;

fn recorded(name: &str) -> Vec<String> {
    split_frames(&std::fs::read_to_string(sse_dir().join(format!("{name}.sse"))).unwrap())
}

/// `mock-resp` pointed at `server`.
fn model_at(server: &MockServer) -> Model {
    let mut model = mock_resp();
    model.base_url = format!("{}/v1", server.url());
    model
}

fn provider() -> OpenAiResponsesProvider {
    OpenAiResponsesProvider::new().with_retry_policy(RetryPolicy {
        initial_delay: Duration::from_millis(10),
        ..RetryPolicy::default()
    })
}

fn context() -> Context {
    serde_json::from_value(json!({
        "systemPrompt": "Be brief.",
        "messages": [{"role": "user", "content": "What is 2 + 2? Also say hello.", "timestamp": 1}],
        "tools": [{"name": "bash", "description": "Run a command.", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}]
    }))
    .unwrap()
}

fn options() -> StreamOptions {
    StreamOptions {
        api_key: Some(KEY.into()),
        session_id: Some("session-42".into()),
        max_tokens: Some(4096),
        ..StreamOptions::default()
    }
}

async fn run(model: &Model, options: StreamOptions) -> Vec<AssistantMessageEvent> {
    let events: Vec<_> = provider()
        .stream(model, &context(), options)
        .collect()
        .await;
    assert_well_formed(&events);
    events
}

fn assert_request(request: &RecordedRequest, model: &Model, options: StreamOptions) {
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/v1/responses");
    let header = |name| request.header(name);
    assert_eq!(header("authorization"), Some("Bearer sk-test-key"));
    assert_eq!(header("content-type"), Some("application/json"));
    assert_eq!(header("accept"), Some("application/json"));
    assert_eq!(header("session_id"), Some("session-42"));
    assert_eq!(header("x-client-request-id"), Some("session-42"));
    let mut options = OpenAiResponsesOptions {
        base: options,
        ..OpenAiResponsesOptions::default()
    };
    options.base.cache_retention = Some(pi_ai::CacheRetention::Short);
    let expected = serde_json::to_value(build_request_body(model, &context(), &options)).unwrap();
    assert_eq!(request.json(), expected);
}

#[tokio::test]
async fn text_answer_streams_and_the_request_is_what_pi_sends() {
    let server = MockServer::start([MockResponse::sse(recorded("a-text-resp-1"))])
        .await
        .unwrap();
    let model = model_at(&server);
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
    let message = final_message(&events);
    assert_eq!(message.text(), "Hello! I am a mock model. 2 + 2 = 4.");
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.response_id.as_deref(), Some("resp_mock0001"));
    assert_eq!(
        (
            message.usage.input,
            message.usage.output,
            message.usage.total_tokens
        ),
        (1200, 14, 1214)
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_request(&requests[0], &model, options());
    assert_eq!(
        requests[0].json()["input"][0],
        json!({"role": "system", "content": "Be brief."})
    );
}

#[tokio::test]
async fn tool_call_ends_with_tool_use() {
    let server = MockServer::start([MockResponse::sse(recorded("b-bash-resp-1"))])
        .await
        .unwrap();
    let model = model_at(&server);
    let message = final_message(&run(&model, options()).await);
    assert_eq!(message.stop_reason, StopReason::ToolUse);
    let call = message.tool_calls().next().unwrap();
    assert_eq!(call.id, "call_Rp4nQ8wE2rT6yU0iO3pA5sD7|fc_mock0001_0");
    assert_eq!(
        (call.name.as_str(), &call.arguments),
        ("bash", &json!({"command": "ls"}))
    );
    assert_request(&server.requests()[0], &model, options());
}

#[tokio::test]
async fn http_500_is_retried_then_reported_with_the_provider_text() {
    let server = MockServer::start([MockResponse::json(500, SERVER_ERROR)])
        .await
        .unwrap();
    let events = run(&model_at(&server), options()).await;
    let kinds: Vec<&str> = events.iter().map(AssistantMessageEvent::kind).collect();
    assert_eq!(
        kinds,
        ["error"],
        "as pi, a refused request never starts the stream"
    );
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("500 The server had an error while processing your request.")
    );
    assert!(message.content.is_empty());
    assert_eq!(server.requests().len(), 3, "one attempt and two retries");
}

#[tokio::test]
async fn http_429_then_success() {
    let server = MockServer::start([
        MockResponse::Body {
            status: 429,
            headers: vec![("retry-after-ms".into(), "20".into())],
            body: r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#.into(),
        },
        MockResponse::sse(recorded("a-text-resp-1")),
    ])
    .await
    .unwrap();
    let message = final_message(&run(&model_at(&server), options()).await);
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.text(), "Hello! I am a mock model. 2 + 2 = 4.");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_cut_stream_is_an_error_keeping_the_partial_text() {
    let frames: Vec<String> = recorded("a-text-resp-1").into_iter().take(6).collect();
    let server = MockServer::start([MockResponse::CutSse { frames }])
        .await
        .unwrap();
    let events = run(&model_at(&server), options()).await;
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert!(message.error_message.is_some());
    assert_eq!(message.text(), "Hello! I am a mock model");
    assert_eq!(
        server.requests().len(),
        1,
        "a stream that started is not retried"
    );
}

#[tokio::test]
async fn a_stream_ending_without_completed_is_done_like_pi() {
    let frames: Vec<String> = recorded("a-text-resp-1").into_iter().take(6).collect();
    let server = MockServer::start([MockResponse::sse(frames)])
        .await
        .unwrap();
    let message = final_message(&run(&model_at(&server), options()).await);
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.text(), "Hello! I am a mock model");
    assert_eq!(message.usage.total_tokens, 0, "no usage arrived");
}

#[tokio::test]
async fn invalid_json_in_an_event_is_an_error() {
    let server = MockServer::start([MockResponse::sse(recorded("invalid-json"))])
        .await
        .unwrap();
    let message = final_message(&run(&model_at(&server), options()).await);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert!(
        message
            .error_message
            .as_deref()
            .unwrap()
            .starts_with("Invalid openai-responses stream event")
    );
    assert_eq!(message.text(), "Before the bad frame");
}

#[tokio::test]
async fn response_failed_is_an_error() {
    let server = MockServer::start([MockResponse::sse(recorded("failed"))])
        .await
        .unwrap();
    let message = final_message(&run(&model_at(&server), options()).await);
    assert_eq!(
        message.error_message.as_deref(),
        Some("server_error: The model failed to generate a response.")
    );
}

#[tokio::test]
async fn cancel_mid_stream_is_aborted_and_keeps_the_text() {
    let server = MockServer::start([MockResponse::Sse {
        frames: recorded("a-text-resp-1"),
        delay: Duration::from_millis(150),
    }])
    .await
    .unwrap();
    let cancel = CancellationToken::new();
    let mut stream = provider().stream(
        &model_at(&server),
        &context(),
        StreamOptions {
            cancel: cancel.clone(),
            ..options()
        },
    );
    while let Some(event) = stream.next().await {
        if matches!(event, AssistantMessageEvent::TextDelta { .. }) {
            break;
        }
    }
    cancel.cancel();
    let rest: Vec<_> = stream.collect().await;
    assert_eq!(rest.len(), 1);
    let AssistantMessageEvent::Error { reason, error } = &rest[0] else {
        panic!("{rest:?}");
    };
    assert_eq!(*reason, ErrorReason::Aborted);
    assert_eq!(error.stop_reason, StopReason::Aborted);
    assert_eq!(error.error_message.as_deref(), Some("Request was aborted"));
    assert_eq!(error.text(), "Hello! I am ");
}

#[tokio::test]
async fn a_missing_api_key_is_an_error_event() {
    let server = MockServer::start([MockResponse::sse(recorded("a-text-resp-1"))])
        .await
        .unwrap();
    let options = StreamOptions {
        api_key: None,
        ..options()
    };
    let events: Vec<_> = provider()
        .stream(&model_at(&server), &context(), options)
        .collect()
        .await;
    let kinds: Vec<&str> = events.iter().map(AssistantMessageEvent::kind).collect();
    assert_eq!(
        kinds,
        ["error"],
        "like pi-ai's failed streams, no start event"
    );
    assert_eq!(
        final_message(&events).error_message.as_deref(),
        Some("No API key for provider: mock-resp")
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn stream_simple_maps_reasoning_and_the_output_limit() {
    let server = MockServer::start([MockResponse::sse(recorded("reasoning-summary"))])
        .await
        .unwrap();
    let mut model = common::gpt5_mini();
    model.base_url = format!("{}/v1/", server.url());
    let options = SimpleStreamOptions {
        base: StreamOptions {
            max_tokens: None,
            ..options()
        },
        reasoning: Some(ThinkingLevel::Xhigh),
        thinking_budgets: None,
    };
    let events: Vec<_> = provider()
        .stream_simple(&model, &context(), options)
        .collect()
        .await;
    assert_well_formed(&events);
    assert_eq!(final_message(&events).stop_reason, StopReason::Stop);
    let body = server.requests()[0].json();
    assert_eq!(server.requests()[0].path, "/v1/responses");
    assert_eq!(body["max_output_tokens"], 32000);
    assert_eq!(
        (&body["reasoning"], &body["include"]),
        (
            &json!({"effort": "high", "summary": "auto"}),
            &json!(["reasoning.encrypted_content"])
        )
    );
    assert_eq!(body["input"][0]["role"], "developer");
}

#[tokio::test]
async fn headers_and_payload_hook_are_applied() {
    let server = MockServer::start([MockResponse::sse(recorded("a-text-resp-1"))])
        .await
        .unwrap();
    let mut model = model_at(&server);
    model.headers = Some([("X-Model-Header".to_owned(), "m".to_owned())].into());
    model.compat = Some(json!({"sendSessionIdHeader": false}));
    let hook: pi_ai::PayloadHook = Arc::new(|body: &Value, _: &Model| {
        let mut body = body.clone();
        body["metadata"] = json!({"hooked": true});
        Some(body)
    });
    let mut headers = std::collections::BTreeMap::new();
    headers.insert("x-model-header".to_owned(), "overridden".to_owned());
    let options = StreamOptions {
        headers,
        on_payload: Some(hook),
        ..options()
    };
    run(&model, options).await;
    let request = &server.requests()[0];
    assert_eq!(request.header("x-model-header"), Some("overridden"));
    assert_eq!(
        request.header("session_id"),
        None,
        "compat.sendSessionIdHeader is false"
    );
    assert_eq!(request.header("x-client-request-id"), Some("session-42"));
    assert_eq!(request.json()["metadata"], json!({"hooked": true}));
}

#[tokio::test]
async fn register_puts_the_provider_in_the_global_registry() {
    pi_providers_openai_responses::register();
    let server = MockServer::start([MockResponse::sse(recorded("a-text-resp-1"))])
        .await
        .unwrap();
    let model = model_at(&server);
    assert!(pi_ai::get_api_provider(&model.api).is_some());
    let message = pi_ai::complete(&model, &context(), options()).await;
    assert_eq!(message.text(), "Hello! I am a mock model. 2 + 2 = 4.");
    let replayed = Message::Assistant(message);
    assert_eq!(
        serde_json::to_value(&replayed).unwrap()["responseId"],
        "resp_mock0001"
    );
}
