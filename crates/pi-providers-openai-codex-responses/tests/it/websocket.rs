//! The WebSocket transport end to end against loopback servers: a WebSocket
//! mock (`ws_mock`) and, for the fallback, the HTTP mock of
//! `pi-test-support` (which answers upgrades 404). Text, a tool call, the
//! continuation of a cached socket (`previous_response_id` + only the new
//! input), a refused socket falling back to SSE with pi's diagnostic, a
//! socket closed after the stream started, cancellation, and parity of the
//! `response.create` messages with pi 0.73.1's capture
//! (`fixtures/pi-0.73.1-codex-ws`, made by
//! `fixtures/capture/codex_ws_scenarios.py`). Each test uses its own
//! session id: the socket cache is per process.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use crate::ws_mock;

use std::time::Duration;

use futures::StreamExt;
use pi_ai::{
    AssistantMessage, AssistantMessageEvent, CancellationToken, Context, Message, Model,
    StopReason, StreamOptions, Tool, Transport,
};
use pi_http::RetryPolicy;
use pi_providers_openai_codex_responses::{
    Continuation, OPENAI_BETA_RESPONSES_WEBSOCKETS, OpenAiCodexOptions, OpenAiCodexProvider,
    build_request_body, response_create_message, websocket_debug_stats,
};
use pi_test_support::captures::Captures;
use pi_test_support::final_message;
use pi_test_support::mock_server::{MockResponse, MockServer};
use pi_test_support::parity::read_jsonl;
use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};
use ws_mock::{Reply, Then, WsMock, events_of, header};

const WS_CAPTURES: Captures = Captures::new("pi-0.73.1-codex-ws");

fn provider() -> OpenAiCodexProvider {
    OpenAiCodexProvider::new().with_retry_policy(RetryPolicy {
        max_retries: 0,
        ..RetryPolicy::default()
    })
}

fn options(session: &str, transport: Transport) -> OpenAiCodexOptions {
    OpenAiCodexOptions {
        base: StreamOptions {
            api_key: Some(common::CAPTURES.api_key()),
            session_id: Some(session.to_owned()),
            transport: Some(transport),
            ..StreamOptions::default()
        },
        ..OpenAiCodexOptions::default()
    }
}

fn user(text: &str) -> Message {
    serde_json::from_value(json!({"role": "user", "content": text, "timestamp": 1})).unwrap()
}

fn tool_result(call_id: &str, output: &str) -> Message {
    serde_json::from_value(json!({
        "role": "toolResult", "toolCallId": call_id, "toolName": "bash",
        "content": [{"type": "text", "text": output}], "isError": false, "timestamp": 2
    }))
    .unwrap()
}

fn context(messages: Vec<Message>) -> Context {
    Context {
        system_prompt: Some("You are a test.".to_owned()),
        messages,
        tools: Some(vec![Tool {
            name: "bash".to_owned(),
            description: "Run a command".to_owned(),
            parameters: json!({"type": "object", "properties": {"command": {"type": "string"}}}),
        }]),
        ..Context::default()
    }
}

async fn call(
    model: &Model,
    context: &Context,
    options: OpenAiCodexOptions,
) -> Vec<AssistantMessageEvent> {
    let stream = provider().stream_with(model, context, options);
    tokio::time::timeout(Duration::from_secs(20), stream.collect())
        .await
        .expect("the call ended")
}

fn text_of(message: &AssistantMessage) -> String {
    message
        .content
        .iter()
        .filter_map(|block| match block {
            pi_ai::AssistantContent::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect()
}

fn reply(file: &str) -> Reply {
    Reply {
        events: events_of(file),
        then: Then::Wait,
    }
}

#[tokio::test]
async fn text_over_the_socket_with_pi_headers() {
    let mock = WsMock::start([reply("a-text-cdx-1.sse")]).await;
    let model = common::CAPTURES.model_at("mock-cdx", &mock.url());
    let events = call(
        &model,
        &context(vec![user("hi")]),
        options("ws-text", Transport::Auto),
    )
    .await;
    assert_eq!(events[0].kind(), "start");
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Stop, "{message:?}");
    assert_eq!(text_of(&message), "Hello! I am a mock model. 2 + 2 = 4.");
    assert_eq!(message.response_id.as_deref(), Some("resp_mock0001"));
    assert_eq!(message.diagnostics, None);

    let handshakes = mock.handshakes();
    assert_eq!(handshakes.len(), 1);
    let (path, headers) = &handshakes[0];
    assert_eq!(path, "/codex/responses");
    for (name, value) in [
        ("openai-beta", OPENAI_BETA_RESPONSES_WEBSOCKETS),
        ("session_id", "ws-text"),
        ("x-client-request-id", "ws-text"),
        ("chatgpt-account-id", "acc-mock-0001"),
        ("originator", "pi"),
    ] {
        assert_eq!(header(headers, name), Some(value), "{name}");
    }
    let bearer = format!("Bearer {}", common::CAPTURES.api_key());
    assert_eq!(header(headers, "authorization"), Some(bearer.as_str()));
    assert_eq!(header(headers, "content-type"), None);
    assert_eq!(header(headers, "accept"), None);

    let sent = &mock.messages()[0].message;
    assert_eq!(sent["type"], "response.create");
    assert_eq!(sent["model"], "mock-cdx");
    assert_eq!(sent["prompt_cache_key"], "ws-text");
    assert_eq!(sent.get("previous_response_id"), None);
    let stats = websocket_debug_stats("ws-text").unwrap();
    assert_eq!(
        (
            stats.requests,
            stats.connections_created,
            stats.full_context_requests
        ),
        (1, 1, 1)
    );
}

/// Two calls of one session: the tool call, then the answer after its
/// result, on the same socket.
async fn tool_call_then_answer(session: &str, transport: Transport) -> (WsMock, AssistantMessage) {
    let mock = WsMock::start([reply("b-bash-cdx-1.sse"), reply("b-bash-cdx-2.sse")]).await;
    let model = common::CAPTURES.model_at("mock-cdx", &mock.url());
    let first = final_message(
        &call(
            &model,
            &context(vec![user("List the files.")]),
            options(session, transport),
        )
        .await,
    );
    assert_eq!(first.stop_reason, StopReason::ToolUse, "{first:?}");
    let pi_ai::AssistantContent::ToolCall(tool_call) = first.content.last().unwrap() else {
        panic!("no tool call: {first:?}");
    };
    assert_eq!(tool_call.name, "bash");
    assert_eq!(tool_call.arguments, json!({"command": "ls"}));
    let second_context = context(vec![
        user("List the files."),
        Message::Assistant(first.clone()),
        tool_result(&tool_call.id, "notes.txt\n"),
    ]);
    let second = final_message(&call(&model, &second_context, options(session, transport)).await);
    assert_eq!(second.stop_reason, StopReason::Stop, "{second:?}");
    assert!(!text_of(&second).is_empty());
    (mock, first)
}

#[tokio::test]
async fn a_cached_socket_continues_with_only_the_new_input() {
    let (mock, first) = tool_call_then_answer("ws-continue", Transport::Auto).await;
    assert_eq!(mock.handshakes().len(), 1);
    let messages = mock.messages();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[1].connection, 1);
    let second = &messages[1].message;
    assert_eq!(
        second["previous_response_id"],
        first.response_id.clone().unwrap()
    );
    let pi_ai::AssistantContent::ToolCall(tool_call) = first.content.last().unwrap() else {
        panic!()
    };
    let call_id = tool_call.id.split('|').next().unwrap();
    assert_eq!(
        second["input"],
        json!([{"type": "function_call_output", "call_id": call_id, "output": "notes.txt\n"}])
    );
    let stats = websocket_debug_stats("ws-continue").unwrap();
    assert_eq!(
        (
            stats.connections_created,
            stats.connections_reused,
            stats.delta_requests,
            stats.last_delta_input_items
        ),
        (1, 1, 1, Some(1))
    );
}

#[tokio::test]
async fn a_plain_websocket_sends_the_whole_context_every_time() {
    let (mock, _) = tool_call_then_answer("ws-plain", Transport::Websocket).await;
    assert_eq!(mock.handshakes().len(), 1);
    let second = &mock.messages()[1].message;
    assert_eq!(second.get("previous_response_id"), None);
    assert_eq!(second["input"].as_array().unwrap().len(), 4);
}

fn sse_frames(file: &str) -> Vec<String> {
    pi_test_support::sse::sse_file_raw_frames("openai-codex-responses", file)
}

/// pi's diagnostic of a capture folder, without the values of one run.
fn pi_diagnostic(folder: &str) -> Value {
    let message = WS_CAPTURES
        .session(folder)
        .assistant_json
        .into_iter()
        .next()
        .unwrap();
    let mut diagnostic = message["diagnostics"][0].clone();
    diagnostic["timestamp"] = json!(0);
    diagnostic["error"].as_object_mut().unwrap().remove("stack");
    diagnostic
}

fn without_run_values(mut diagnostic: Value) -> Value {
    assert!(diagnostic["timestamp"].as_i64().unwrap() > 0);
    diagnostic["timestamp"] = json!(0);
    diagnostic
}

#[tokio::test]
async fn a_refused_socket_falls_back_to_sse_with_pi_diagnostic() {
    let server = MockServer::start([
        MockResponse::sse(sse_frames("a-text-cdx-1.sse")),
        MockResponse::sse(sse_frames("a-text-cdx-1.sse")),
    ])
    .await
    .unwrap();
    let model = common::CAPTURES.model_at("mock-cdx", &server.url());
    let ctx = context(vec![user("hi")]);
    let events = call(&model, &ctx, options("ws-refused", Transport::Auto)).await;
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Stop, "{message:?}");
    assert_eq!(text_of(&message), "Hello! I am a mock model. 2 + 2 = 4.");
    let upgrades = server.upgrades();
    assert_eq!(upgrades.len(), 1);
    assert_eq!(upgrades[0].path, "/codex/responses");
    assert_eq!(
        upgrades[0].header("openai-beta"),
        Some(OPENAI_BETA_RESPONSES_WEBSOCKETS)
    );
    let posts = server.requests();
    assert_eq!(posts.len(), 1);
    let mut ours = without_run_values(message.diagnostics.clone().unwrap()[0].clone());
    assert_eq!(ours["details"]["requestBytes"], json!(posts[0].body.len()));
    // pi's text is undici's; the rest is pi's diagnostic as pi writes it.
    let mut pi = pi_diagnostic("r-refused-ws");
    assert_eq!(
        pi["error"]["message"],
        "Received network error or non-101 status code."
    );
    assert!(
        ours["error"]["message"].as_str().unwrap().contains("404"),
        "{ours}"
    );
    for diagnostic in [&mut ours, &mut pi] {
        diagnostic["error"]["message"] = json!("<text>");
        diagnostic["details"]["requestBytes"] = json!(0);
    }
    assert_eq!(ours, pi);

    // The session now goes straight to SSE.
    let again = final_message(&call(&model, &ctx, options("ws-refused", Transport::Auto)).await);
    assert_eq!(again.stop_reason, StopReason::Stop);
    assert_eq!(again.diagnostics, None);
    assert_eq!(server.upgrades().len(), 1);
    assert_eq!(server.requests().len(), 2);
    let stats = websocket_debug_stats("ws-refused").unwrap();
    assert_eq!((stats.websocket_failures, stats.sse_fallbacks), (1, 2));
    assert!(stats.websocket_fallback_active);
}

#[tokio::test]
async fn a_socket_closed_after_the_start_fails_the_call_with_pi_diagnostic() {
    let mut events = events_of("a-text-cdx-1.sse");
    events.truncate(3);
    let mock = WsMock::start([Reply {
        events,
        then: Then::Close(1011, "mock failure"),
    }])
    .await;
    let model = common::CAPTURES.model_at("mock-cdx", &mock.url());
    let events = call(
        &model,
        &context(vec![user("hi")]),
        options("ws-closed", Transport::Auto),
    )
    .await;
    assert_eq!(events[0].kind(), "start");
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("WebSocket closed 1011 mock failure")
    );
    let mut ours = without_run_values(message.diagnostics.unwrap()[0].clone());
    let mut pi = pi_diagnostic("c-closed-ws");
    for diagnostic in [&mut ours, &mut pi] {
        diagnostic["details"]["requestBytes"] = json!(0);
    }
    assert_eq!(ours, pi);
    assert!(
        websocket_debug_stats("ws-closed")
            .unwrap()
            .websocket_fallback_active
    );
}

/// The socket's clean end: every event of pi's text answer but
/// `response.completed`, then a normal close (1000). The answer is not
/// complete: an error keeping the text, as pi's WebSocket transport says
/// too (its text matches the retryable `websocket closed` pattern).
#[tokio::test]
async fn a_socket_closed_cleanly_before_the_terminal_event_is_an_error() {
    let mock = WsMock::start([Reply {
        events: events_of("eof-before-terminal-event.sse"),
        then: Then::Close(1000, ""),
    }])
    .await;
    let model = common::CAPTURES.model_at("mock-cdx", &mock.url());
    let events = call(
        &model,
        &context(vec![user("hi")]),
        options("ws-clean-close", Transport::Websocket),
    )
    .await;
    assert_eq!(events.last().unwrap().kind(), "error");
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("WebSocket closed 1000")
    );
    assert_eq!(text_of(&message), "Hello! I am a mock model. 2 + 2 = 4.");
    assert_eq!(message.diagnostics.map(|d| d.len()), Some(1));
}

#[tokio::test]
async fn cancel_ends_the_call_and_drops_the_socket() {
    let mut first = events_of("a-text-cdx-1.sse");
    first.truncate(6);
    let mock = WsMock::start([
        Reply {
            events: first,
            then: Then::Hang,
        },
        reply("a-text-cdx-1.sse"),
    ])
    .await;
    let model = common::CAPTURES.model_at("mock-cdx", &mock.url());
    let ctx = context(vec![user("hi")]);
    let cancel = CancellationToken::new();
    let mut cancelled = options("ws-cancel", Transport::Auto);
    cancelled.base.cancel = cancel.clone();
    let mut stream = provider().stream_with(&model, &ctx, cancelled);
    let mut events = Vec::new();
    while let Some(event) = tokio::time::timeout(Duration::from_secs(10), stream.next())
        .await
        .unwrap()
    {
        if event.kind() == "text_delta" {
            cancel.cancel();
        }
        events.push(event);
    }
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Aborted);
    assert_eq!(message.diagnostics, None);
    assert_eq!(mock.wait_closed(1).await, 1);

    // The next call opens a new socket.
    let again = final_message(&call(&model, &ctx, options("ws-cancel", Transport::Auto)).await);
    assert_eq!(again.stop_reason, StopReason::Stop, "{again:?}");
    assert_eq!(mock.handshakes().len(), 2);
}

fn captured_messages(folder: &str) -> Vec<Value> {
    read_jsonl(WS_CAPTURES.dir().join(folder).join("messages.jsonl"))
        .into_iter()
        .map(|m| m["message"].clone())
        .collect()
}

/// The body pi encoded for the `at`-th call of a capture's session.
fn body_for(folder: &str, captured: &Value, at: usize) -> Map<String, Value> {
    let session = WS_CAPTURES.session(folder);
    let tools = captured["tools"].as_array().map(|tools| {
        tools
            .iter()
            .map(|t| Tool {
                name: t["name"].as_str().unwrap().to_owned(),
                description: t["description"].as_str().unwrap().to_owned(),
                parameters: t["parameters"].clone(),
            })
            .collect()
    });
    let context = Context {
        system_prompt: Some(captured["instructions"].as_str().unwrap().to_owned()),
        messages: session.messages_before(at),
        tools,
        ..Context::default()
    };
    let mut options = options(&session.id, Transport::Auto);
    options.base.api_key = None;
    let body = build_request_body(&common::CAPTURES.model("mock-cdx"), &context, &options);
    match serde_json::to_value(body).unwrap() {
        Value::Object(map) => map,
        other => panic!("{other}"),
    }
}

#[test]
fn the_first_response_create_equals_pi() {
    for folder in ["a-text-ws", "b-bash-ws"] {
        let captured = &captured_messages(folder)[0];
        let ours: Value =
            serde_json::from_str(&response_create_message(&body_for(folder, captured, 0))).unwrap();
        assert_eq!(&ours, captured, "{folder}");
        assert_eq!(ours.to_string(), captured.to_string(), "{folder}");
    }
}

#[test]
fn the_continued_response_create_equals_pi() {
    let folder = "b-bash-ws";
    let captured = captured_messages(folder);
    let first_body = body_for(folder, &captured[0], 0);
    let session = WS_CAPTURES.session(folder);
    let Some(Message::Assistant(answer)) = session
        .messages
        .iter()
        .find(|m| matches!(m, Message::Assistant(_)))
        .cloned()
    else {
        panic!("no answer")
    };
    let continuation =
        Continuation::after(&common::CAPTURES.model("mock-cdx"), first_body, answer).unwrap();
    let second_body = body_for(folder, &captured[1], 1);
    let continued = continuation.request_body(&second_body).unwrap();
    let ours: Value = serde_json::from_str(&response_create_message(&continued)).unwrap();
    assert_eq!(ours, captured[1]);
    assert_eq!(ours.to_string(), captured[1].to_string());
}
