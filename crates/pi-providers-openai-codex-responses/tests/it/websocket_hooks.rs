//! The call hooks over the WebSocket transport: `on_payload` sees the body
//! and the socket's `response.create` message is made from its
//! replacement; `on_response` sees the upgrade's answer (101) when a socket
//! is opened for the call, and nothing for a call on a reused socket.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;
use crate::ws_mock;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use pi_ai::{Context, Message, PayloadHook, ResponseHook, StopReason, StreamOptions, Transport};
use pi_http::RetryPolicy;
use pi_providers_openai_codex_responses::{OpenAiCodexOptions, OpenAiCodexProvider};
use pi_test_support::final_message;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use ws_mock::{Reply, Then, WsMock, events_of};

fn reply(file: &str) -> Reply {
    Reply {
        events: events_of(file),
        then: Then::Wait,
    }
}

#[tokio::test]
async fn hooks_see_the_socket_call() {
    let mock = WsMock::start([reply("a-text-cdx-1.sse"), reply("a-text-cdx-1.sse")]).await;
    let model = common::CAPTURES.model_at("mock-cdx", &mock.url());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let options = OpenAiCodexOptions {
        base: StreamOptions {
            api_key: Some(common::CAPTURES.api_key()),
            session_id: Some("ws-hooks".to_owned()),
            transport: Some(Transport::Auto),
            on_payload: Some(PayloadHook::new(|mut body: Value, _: &_| async move {
                tokio::task::yield_now().await;
                body["pi_hooked"] = json!(true);
                Some(body)
            })),
            on_response: Some(ResponseHook::sync(move |response| {
                record.lock().unwrap().push(response.clone());
            })),
            ..StreamOptions::default()
        },
        ..OpenAiCodexOptions::default()
    };
    let provider = OpenAiCodexProvider::new().with_retry_policy(RetryPolicy {
        max_retries: 0,
        ..RetryPolicy::default()
    });
    let context: Context = Context {
        messages: vec![
            serde_json::from_value::<Message>(
                json!({"role": "user", "content": "hi", "timestamp": 1}),
            )
            .unwrap(),
        ],
        ..Context::default()
    };
    for _ in 0..2 {
        let stream = provider.stream_with(&model, &context, options.clone());
        let events: Vec<_> = tokio::time::timeout(Duration::from_secs(20), stream.collect())
            .await
            .expect("the call ended");
        let message = final_message(&events);
        assert_eq!(message.stop_reason, StopReason::Stop, "{message:?}");
    }
    assert_eq!(
        mock.handshakes().len(),
        1,
        "the second call reuses the socket"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "only the call that opened the socket");
    assert_eq!(seen[0].status, 101);
    assert!(seen[0].headers.contains_key("sec-websocket-accept"));
    let messages = mock.messages();
    assert_eq!(messages[0].message["type"], "response.create");
    assert_eq!(messages[0].message["pi_hooked"], true);
}
