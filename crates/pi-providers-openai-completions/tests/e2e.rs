//! End to end over real loopback HTTP (`pi_http::mock_server`): success,
//! tool call, HTTP errors with retries, cut and unterminated streams,
//! invalid JSON, cancellation, and the request the server received.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use common::{model, sse_file_raw_frames, tools, user};
use futures::StreamExt;
use pi_ai::{
    AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream, Context, Model,
    SimpleStreamOptions, StopReason, StreamFunction, StreamOptions, ThinkingLevel,
};
use pi_http::mock_server::{MockResponse, MockServer};
use pi_providers_openai_completions::{
    OpenAiCompletionsOptions, OpenAiCompletionsProvider, build_request_body,
};
use pretty_assertions::assert_eq;
use serde_json::json;

const KEY: &str = "sk-test-completions";
const OPENAI_500: &str = r#"{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}"#;

fn served_model(server: &MockServer) -> Model {
    Model {
        base_url: format!("{}/v1", server.url()),
        ..model("mock-gpt", false, false)
    }
}

fn context() -> Context {
    Context {
        system_prompt: Some("Be brief.".into()),
        messages: vec![user("What is 2 + 2?")],
        tools: Some(tools()),
        ..Context::default()
    }
}

fn options() -> SimpleStreamOptions {
    SimpleStreamOptions {
        base: StreamOptions {
            api_key: Some(KEY.into()),
            ..StreamOptions::default()
        },
        ..SimpleStreamOptions::default()
    }
}

fn call(model: &Model, options: SimpleStreamOptions) -> AssistantMessageEventStream {
    OpenAiCompletionsProvider::new().stream_simple(model, &context(), options)
}

async fn run(
    model: &Model,
    options: SimpleStreamOptions,
) -> (Vec<AssistantMessageEvent>, AssistantMessage) {
    let events: Vec<AssistantMessageEvent> = call(model, options).collect().await;
    let last = events.last().unwrap().final_message().unwrap().clone();
    (events, last)
}

fn frames(file: &str) -> Vec<String> {
    sse_file_raw_frames(file)
}

#[tokio::test]
async fn text_answer_and_the_request_sent() {
    let server = MockServer::start([MockResponse::sse(frames("a-text-oai-1.sse"))])
        .await
        .unwrap();
    let m = served_model(&server);
    let (events, message) = run(&m, options()).await;
    assert_eq!(events.first().unwrap().kind(), "start");
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.text(), "Hello! I am a mock model. 2 + 2 = 4.");
    assert_eq!(message.usage.total_tokens, 1214);

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(
        (request.method.as_str(), request.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("accept"), Some("application/json"));
    let expected = serde_json::to_value(build_request_body(
        &m,
        &context(),
        &OpenAiCompletionsOptions::from_simple(&m, &options()),
    ))
    .unwrap();
    assert_eq!(request.json(), expected);
    assert_eq!(request.json()["max_completion_tokens"], json!(4096));
}

#[tokio::test]
async fn tool_call_round() {
    let server = MockServer::start([MockResponse::sse(frames("c-read-edit-oai-2.sse"))])
        .await
        .unwrap();
    let (events, message) = run(&served_model(&server), options()).await;
    assert_eq!(message.stop_reason, StopReason::ToolUse);
    let call = message.tool_calls().next().unwrap();
    assert_eq!(call.name, "edit");
    assert_eq!(
        call.arguments,
        json!({"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "BETA"}]})
    );
    let ends = events.iter().filter(|e| e.kind() == "toolcall_end").count();
    assert_eq!(ends, 1);
}

#[tokio::test]
async fn http_500_is_retried_twice_then_reported_with_the_provider_text() {
    let server = MockServer::start([MockResponse::json(500, OPENAI_500)])
        .await
        .unwrap();
    let (events, message) = run(&served_model(&server), options()).await;
    let kinds: Vec<&str> = events.iter().map(AssistantMessageEvent::kind).collect();
    assert_eq!(
        kinds,
        ["error"],
        "as pi, a refused request never starts the stream"
    );
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("500 The server had an error while processing your request. Sorry about that!")
    );
    assert!(message.content.is_empty());
    assert_eq!(
        server.requests().len(),
        3,
        "first attempt + two retries, as pi's SDK does"
    );
}

#[tokio::test]
async fn rate_limit_then_success() {
    let limited = MockResponse::Body {
        status: 429,
        headers: vec![("retry-after".into(), "0".into())],
        body: r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#.into(),
    };
    let server = MockServer::start([limited, MockResponse::sse(frames("f-continue-oai-1.sse"))])
        .await
        .unwrap();
    let (_, message) = run(&served_model(&server), options()).await;
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.text(), "Noted: the code word is pineapple.");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].body, requests[1].body,
        "the retry sends the same body"
    );
}

#[tokio::test]
async fn cut_stream_keeps_the_partial_text() {
    let mut cut = frames("a-text-oai-1.sse");
    cut.truncate(3);
    let server = MockServer::start([MockResponse::CutSse { frames: cut }])
        .await
        .unwrap();
    let (events, message) = run(&served_model(&server), options()).await;
    assert_eq!(events.last().unwrap().kind(), "error");
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(message.text(), "Hello! I am a mock model");
    let error = message.error_message.clone().unwrap();
    let named = format!("{}: Stream error: ", message.provider);
    assert!(error.starts_with(&named), "names the provider: {error}");
    assert_eq!(
        server.requests().len(),
        1,
        "a stream that started is not retried"
    );
}

/// Over a real connection: `[DONE]` without a finish reason is a stop
/// (pi 0.73.1's reading); a body that ends with neither is an error
/// (pi would call it a stop too: see docs/payload-differences.md).
#[tokio::test]
async fn streams_without_a_finish_reason() {
    let server = MockServer::start([MockResponse::sse(frames("done-without-finish-reason.sse"))])
        .await
        .unwrap();
    let (events, message) = run(&served_model(&server), options()).await;
    assert_eq!(events.last().unwrap().kind(), "done");
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(
        message.text(),
        "A local server that never says why it stopped."
    );
    let server = MockServer::start([MockResponse::sse(frames("no-finish-reason.sse"))])
        .await
        .unwrap();
    let (events, message) = run(&served_model(&server), options()).await;
    assert_eq!(events.last().unwrap().kind(), "error");
    assert_eq!(message.stop_reason, StopReason::Error);
    let expected = format!("{}: Stream ended without finish_reason", message.provider);
    assert_eq!(message.error_message, Some(expected));
}

#[tokio::test]
async fn unterminated_streams_follow_pi() {
    // The body ends before any finish_reason: an error naming it.
    let server = MockServer::start([MockResponse::sse(frames("no-finish-reason.sse"))])
        .await
        .unwrap();
    let (_, message) = run(&served_model(&server), options()).await;
    assert_eq!(message.stop_reason, StopReason::Error);
    let expected = format!("{}: Stream ended without finish_reason", message.provider);
    assert_eq!(message.error_message, Some(expected));
    assert_eq!(message.text(), "The body ends mid-answer");
    // After a finish_reason the missing [DONE] does not matter.
    let server = MockServer::start([MockResponse::sse(frames("no-done-after-finish.sse"))])
        .await
        .unwrap();
    let (_, message) = run(&served_model(&server), options()).await;
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.text(), "Done without the DONE line.");
}

#[tokio::test]
async fn invalid_json_in_an_event() {
    let server = MockServer::start([MockResponse::sse(frames("invalid-json.sse"))])
        .await
        .unwrap();
    let (_, message) = run(&served_model(&server), options()).await;
    assert_eq!(message.stop_reason, StopReason::Error);
    assert!(
        message
            .error_message
            .as_deref()
            .unwrap()
            .starts_with(&format!(
                "{}: Could not parse stream chunk as JSON: ",
                message.provider
            ))
    );
    assert_eq!(message.text(), "Before the bad chunk");
}

#[tokio::test]
async fn cancel_mid_stream_is_aborted_with_the_text_kept() {
    let slow = MockResponse::Sse {
        frames: frames("a-text-oai-1.sse"),
        delay: Duration::from_millis(150),
    };
    let server = MockServer::start([slow]).await.unwrap();
    let opts = options();
    let cancel = opts.base.cancel.clone();
    let mut stream = call(&served_model(&server), opts);
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        let first_delta = event.kind() == "text_delta";
        events.push(event);
        if first_delta {
            cancel.cancel();
        }
    }
    let message = events.last().unwrap().final_message().unwrap();
    assert_eq!(message.stop_reason, StopReason::Aborted);
    assert_eq!(
        message.error_message.as_deref(),
        Some("Request was aborted")
    );
    assert_eq!(message.text(), "Hello! I am ");
}

#[tokio::test]
async fn missing_api_key_fails_without_a_request() {
    let server = MockServer::start([MockResponse::sse(frames("a-text-oai-1.sse"))])
        .await
        .unwrap();
    let (events, message) = run(&served_model(&server), SimpleStreamOptions::default()).await;
    assert_eq!(events.len(), 1);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("No API key for provider: mock-oai")
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn headers_merge_and_payload_hook() {
    let server = MockServer::start([MockResponse::sse(frames("a-text-oai-1.sse"))])
        .await
        .unwrap();
    let mut m = served_model(&server);
    m.reasoning = true;
    m.headers = Some(BTreeMap::from([
        ("X-Title".to_owned(), "pi".to_owned()),
        ("X-Both".to_owned(), "model".to_owned()),
    ]));
    m.compat = Some(json!({"sendSessionAffinityHeaders": true}));
    let mut opts = options();
    opts.reasoning = Some(ThinkingLevel::Low);
    opts.base.session_id = Some("session-42".into());
    opts.base.headers = BTreeMap::from([("x-both".to_owned(), "call".to_owned())]);
    opts.base.on_payload = Some(Arc::new(|body, _model| {
        let mut body = body.clone();
        body["metadata"] = json!({"hooked": true});
        Some(body)
    }));
    let (_, message) = run(&m, opts).await;
    assert_eq!(message.stop_reason, StopReason::Stop);
    let request = &server.requests()[0];
    assert_eq!(request.header("x-title"), Some("pi"));
    assert_eq!(
        request.header("x-both"),
        Some("call"),
        "call headers override model headers"
    );
    assert_eq!(
        request
            .headers
            .iter()
            .filter(|(n, _)| n == "x-both")
            .count(),
        1
    );
    assert_eq!(request.header("session_id"), Some("session-42"));
    assert_eq!(request.header("x-session-affinity"), Some("session-42"));
    let body = request.json();
    assert_eq!(body["metadata"], json!({"hooked": true}));
    assert_eq!(body["reasoning_effort"], json!("low"));
    assert_eq!(body["messages"][0]["role"], json!("developer"));
}

#[tokio::test]
async fn registered_in_the_global_registry() {
    pi_providers_openai_completions::register();
    let server = MockServer::start([MockResponse::sse(frames("b-bash-oai-2.sse"))])
        .await
        .unwrap();
    let message = pi_ai::complete_simple(&served_model(&server), &context(), options()).await;
    assert_eq!(
        message.text(),
        "The directory contains `notes.txt` and `src/`."
    );
    assert!(pi_ai::get_api_provider(&pi_ai::Api::OPENAI_COMPLETIONS).is_some());
}
