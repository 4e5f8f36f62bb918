//! Payload parity with pi 0.73.1: for every captured openai-codex-responses
//! request in `fixtures/pi-0.73.1-codex/*/requests.jsonl` (made by
//! `fixtures/capture/responses_family_scenarios.py`), rebuild the context pi
//! had from the session file, encode it, and compare with pi's body value
//! for value and key for key. The path and pi's headers are checked over
//! real HTTP, and the usage-limit answer gives pi's text after pi's retries.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::Duration;

use futures::StreamExt;
use pi_ai::{Context, Message, Model, SimpleStreamOptions, StopReason, StreamOptions, Tool};
use pi_http::{RetryPolicy, WireOptions};
use pi_providers_openai_codex_responses::{
    OpenAiCodexOptions, OpenAiCodexProvider, build_request_body,
};
use pi_test_support::final_message;
use pi_test_support::mock_server::{MockResponse, MockServer, RecordedRequest};
use pi_test_support::parity::read_jsonl;
use pretty_assertions::assert_eq;
use serde_json::Value;

/// System prompt (`instructions`) and tools as pi sent them.
fn context_from(body: &Value, messages: Vec<Message>) -> Context {
    let tools = body["tools"].as_array().map(|tools| {
        tools
            .iter()
            .map(|t| Tool {
                name: t["name"].as_str().unwrap().to_owned(),
                description: t["description"].as_str().unwrap().to_owned(),
                parameters: t["parameters"].clone(),
            })
            .collect()
    });
    Context {
        system_prompt: Some(body["instructions"].as_str().unwrap().to_owned()),
        messages,
        tools,
        ..Context::default()
    }
}

struct Case {
    folder: String,
    captured: Value,
    model: Model,
    api_key: String,
    context: Context,
    options: OpenAiCodexOptions,
}

/// The model of a capture: a `mock-cdx` entry, or a catalog model whose
/// base URL pi's models.json moved to the mock (`o-oauth-cdx`).
fn model_of(folder: &str) -> Model {
    match common::CAPTURES.command_model(folder) {
        (provider, id) if provider == common::CAPTURES.provider => common::CAPTURES.model(&id),
        (provider, id) => Model {
            base_url: "http://127.0.0.1:18777/backend-api".to_owned(),
            ..pi_ai::get_model(&provider, &id).unwrap().clone()
        },
    }
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for folder in common::CAPTURES.folders() {
        let session = common::CAPTURES.session(&folder);
        let requests = read_jsonl(common::CAPTURES.dir().join(&folder).join("requests.jsonl"));
        let model = model_of(&folder);
        // `o-oauth-cdx` logged in with this token (auth.json).
        let api_key = common::CAPTURES.api_key();
        let earlier = session
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Assistant(a) if a.provider != model.provider))
            .count();
        for (at, request) in requests.into_iter().enumerate() {
            // Failed turns (the usage-limit run) are in the session but
            // never replayed, so later requests carry the same context.
            let context = context_from(&request["body"], session.messages_before(earlier + at));
            let simple = SimpleStreamOptions {
                base: StreamOptions {
                    api_key: Some(api_key.clone()),
                    session_id: Some(session.id.clone()),
                    ..StreamOptions::default()
                },
                reasoning: session.thinking_level.filter(|_| model.reasoning),
                ..SimpleStreamOptions::default()
            };
            out.push(Case {
                folder: folder.clone(),
                captured: request,
                model: model.clone(),
                api_key: api_key.clone(),
                context,
                options: OpenAiCodexOptions::from_simple(&model, simple),
            });
        }
    }
    out
}

#[test]
fn fixture_folders_of_this_wire() {
    assert_eq!(
        common::CAPTURES.folders(),
        [
            "a-text-cdx",
            "b-bash-cdx",
            "i-image-cdx",
            "o-oauth-cdx",
            "t-think-cdx",
            "u-usage-limit-cdx",
            "x-handoff-cdx"
        ]
    );
}

#[test]
fn encoded_bodies_equal_pi_bodies() {
    let cases = cases();
    assert_eq!(cases.len(), 1 + 2 + 1 + 1 + 2 + 4 + 1);
    for case in cases {
        let ours = serde_json::to_value(build_request_body(
            &case.model,
            &case.context,
            &case.options,
        ))
        .unwrap();
        assert_eq!(
            ours, case.captured["body"],
            "{} request {}",
            case.folder, case.captured["seq"]
        );
        assert_eq!(
            serde_json::to_string(&ours).unwrap(),
            serde_json::to_string(&case.captured["body"]).unwrap(),
            "{}",
            case.folder
        );
    }
}

/// The anthropic session continued on Codex: thinking became plain
/// message items, the `toolu_` call keeps its id (no item id), no
/// signature is sent, and the system prompt is the instructions.
#[test]
fn handoff_request_replays_anthropic_turns_as_pi_does() {
    let case = cases()
        .into_iter()
        .find(|c| c.folder == "x-handoff-cdx")
        .unwrap();
    let body = &case.captured["body"];
    let input = body["input"].as_array().unwrap();
    assert_eq!(input[0]["role"], "user");
    let call = input.iter().find(|i| i["type"] == "function_call").unwrap();
    assert!(call["call_id"].as_str().unwrap().starts_with("toolu_"));
    assert!(call.get("id").is_none());
    assert!(input.iter().all(|i| i["type"] != "reasoning"));
    assert!(!body.to_string().contains("signature"));
    let ours = serde_json::to_value(build_request_body(
        &case.model,
        &case.context,
        &case.options,
    ))
    .unwrap();
    assert_eq!(ours["input"], body["input"]);
}

async fn send(case: &Case, answer: MockResponse) -> Vec<RecordedRequest> {
    let server = MockServer::start([answer]).await.unwrap();
    let mut model = case.model.clone();
    model.base_url = model
        .base_url
        .replacen("http://127.0.0.1:18777", &server.url(), 1);
    let stream =
        OpenAiCodexProvider::new().stream_with(&model, &case.context, case.options.clone());
    let events: Vec<_> = stream.collect().await;
    assert_eq!(events.last().unwrap().kind(), "done", "{}", case.folder);
    server.requests()
}

#[tokio::test]
async fn requests_over_http_match_pi_path_headers_and_body() {
    for case in cases() {
        let responses = read_jsonl(
            common::CAPTURES
                .dir()
                .join(&case.folder)
                .join("responses.jsonl"),
        );
        let recorded = responses
            .iter()
            .find(|r| r["seq"] == case.captured["seq"])
            .unwrap();
        let Some(sse) = recorded["sse"].as_array() else {
            continue;
        };
        let frames: Vec<String> = sse.iter().map(|f| f.as_str().unwrap().to_owned()).collect();
        let requests = send(&case, MockResponse::sse(frames)).await;
        assert_eq!(requests.len(), 1);
        let ours = &requests[0];
        let pi = &case.captured["headers"];
        assert_eq!(ours.method, case.captured["method"].as_str().unwrap());
        assert_eq!(ours.path, case.captured["path"].as_str().unwrap());
        for name in [
            "content-type",
            "accept",
            "chatgpt-account-id",
            "originator",
            "openai-beta",
        ] {
            assert_eq!(
                ours.header(name),
                pi[name].as_str(),
                "{name} ({})",
                case.folder
            );
        }
        let session_id = case.options.base.session_id.as_deref();
        assert_eq!(ours.header("session_id"), session_id);
        assert_eq!(ours.header("x-client-request-id"), session_id);
        assert_eq!(
            ours.header("authorization"),
            Some(format!("Bearer {}", case.api_key).as_str())
        );
        let agent = ours.header("user-agent").unwrap();
        assert!(agent.starts_with("pi (") && agent.ends_with(')'), "{agent}");
        assert_eq!(ours.json(), case.captured["body"], "{}", case.folder);
    }
}

/// pi retried the 429 three times and then printed its friendly text.
#[tokio::test]
async fn usage_limit_is_retried_then_reported_with_pis_text() {
    let folder = "u-usage-limit-cdx";
    let case = cases().into_iter().find(|c| c.folder == folder).unwrap();
    let responses = read_jsonl(common::CAPTURES.dir().join(folder).join("responses.jsonl"));
    assert_eq!(responses.len(), 4, "pi sent 1 + 3 retries");
    // The reset an hour after now, as when pi was run.
    let mut body: Value = serde_json::from_str(responses[0]["body"].as_str().unwrap()).unwrap();
    let now_s = pi_ai::now_ms() / 1000;
    body["error"]["resets_at"] = Value::from(now_s + 3600);
    let answers: Vec<_> = (0..4)
        .map(|_| MockResponse::json(429, body.to_string()))
        .collect();
    let server = MockServer::start(answers).await.unwrap();
    let mut model = case.model.clone();
    model.base_url = server.url();
    let fast = RetryPolicy {
        max_retries: 3,
        initial_delay: Duration::from_millis(1),
        max_backoff: Duration::from_millis(4),
        max_retry_delay: None,
    };
    let events: Vec<_> = OpenAiCodexProvider::new()
        .with_retry_policy(fast)
        .stream_with(&model, &case.context, case.options.clone())
        .collect()
        .await;
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    let stderr =
        std::fs::read_to_string(common::CAPTURES.dir().join(folder).join("stderr.txt")).unwrap();
    assert_eq!(message.error_message.as_deref(), Some(stderr.trim_end()));
    assert_eq!(server.requests().len(), 4);
}
