//! Payload parity with pi 0.73.1: for every captured mistral-conversations
//! request in `fixtures/pi-0.73.1-mistral/*/requests.jsonl` (made by
//! `fixtures/capture/mistral_scenarios.py`), rebuild the context pi had from
//! the session file, encode it, and compare with pi's body value for value.
//! The path and the important headers are checked over real HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use futures::StreamExt;
use pi_ai::{Context, Message, Model, SimpleStreamOptions, StreamFunction, StreamOptions, Tool};
use pi_providers_mistral::{MistralOptions, MistralProvider, build_request_body};
use pi_test_support::mock_server::{MockResponse, MockServer, RecordedRequest};
use pi_test_support::parity::read_jsonl;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn pi_dir() -> std::path::PathBuf {
    common::CAPTURES.dir()
}

/// System prompt and tools as pi sent them.
fn context_from(body: &Value, messages: Vec<Message>) -> Context {
    let first = &body["messages"][0];
    let system_prompt =
        (first["role"] == "system").then(|| first["content"].as_str().unwrap().to_owned());
    let tools = body["tools"].as_array().map(|tools| {
        tools
            .iter()
            .map(|t| Tool {
                name: t["function"]["name"].as_str().unwrap().to_owned(),
                description: t["function"]["description"].as_str().unwrap().to_owned(),
                parameters: t["function"]["parameters"].clone(),
            })
            .collect()
    });
    Context {
        system_prompt,
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
    options: SimpleStreamOptions,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for folder in common::CAPTURES.folders() {
        let session = common::CAPTURES.session(&folder);
        // pi 0.73.1 records no model change for `-c --model`: the model is
        // the one the requests name; a handed-off session starts with
        // answers of another provider.
        let requests = read_jsonl(pi_dir().join(&folder).join("requests.jsonl"));
        let model_id = requests[0]["body"]["model"].as_str().unwrap().to_owned();
        let (model, api_key) = (
            common::CAPTURES.model(&model_id),
            common::CAPTURES.api_key(),
        );
        let earlier = session
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Assistant(a) if a.provider.as_str() != common::CAPTURES.provider))
            .count();
        for (at, request) in requests.into_iter().enumerate() {
            assert_eq!(request["body"]["model"], json!(model_id));
            let context = context_from(&request["body"], session.messages_before(earlier + at));
            let options = SimpleStreamOptions {
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
                options,
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
            "a-text-mis",
            "b-bash-mis",
            "i-image-mis",
            "t-think-mis",
            "x-handoff-mis"
        ]
    );
}

#[test]
fn encoded_bodies_equal_pi_bodies() {
    let cases = cases();
    assert_eq!(cases.len(), 1 + 2 + 1 + 2 + 1);
    for case in cases {
        let options = MistralOptions::from_simple(&case.model, &case.options);
        let ours =
            serde_json::to_value(build_request_body(&case.model, &case.context, &options)).unwrap();
        assert_eq!(
            ours, case.captured["body"],
            "{} request {}",
            case.folder, case.captured["seq"]
        );
    }
}

/// The anthropic session continued on mistral: the `toolu_` id became
/// pi's 9-character hash and the thinking became text.
#[test]
fn handoff_request_has_mistral_ids_and_no_thinking() {
    let case = cases()
        .into_iter()
        .find(|c| c.folder == "x-handoff-mis")
        .unwrap();
    let body = &case.captured["body"];
    assert_eq!(body["messages"][2]["tool_calls"][0]["id"], "1crp5dt10");
    assert_eq!(body["messages"][3]["tool_call_id"], "1crp5dt10");
    assert!(!body.to_string().contains("\"thinking\""));
}

async fn send(case: &Case, frames: Vec<String>) -> Vec<RecordedRequest> {
    let server = MockServer::start([MockResponse::sse(frames)])
        .await
        .unwrap();
    let mut model = case.model.clone();
    model.base_url = model
        .base_url
        .replacen("http://127.0.0.1:18777", &server.url(), 1);
    let stream =
        MistralProvider::new().stream_simple(&model, case.context.view(), case.options.clone());
    let _events: Vec<_> = stream.collect().await;
    server.requests()
}

#[tokio::test]
async fn requests_over_http_match_pi_path_headers_and_body() {
    for case in cases() {
        let responses = read_jsonl(pi_dir().join(&case.folder).join("responses.jsonl"));
        let recorded = responses
            .iter()
            .find(|r| r["seq"] == case.captured["seq"])
            .unwrap();
        let frames = recorded["sse"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_owned())
            .collect();
        let requests = send(&case, frames).await;
        assert_eq!(requests.len(), 1);
        let ours = &requests[0];
        let pi = &case.captured["headers"];
        assert_eq!(ours.method, case.captured["method"].as_str().unwrap());
        assert_eq!(ours.path, case.captured["path"].as_str().unwrap());
        for name in ["content-type", "accept", "x-affinity"] {
            assert_eq!(
                ours.header(name),
                pi[name].as_str(),
                "{name} ({})",
                case.folder
            );
        }
        assert_eq!(
            ours.header("authorization"),
            Some(format!("Bearer {}", case.api_key).as_str())
        );
        assert_eq!(ours.json(), case.captured["body"], "{}", case.folder);
    }
}
