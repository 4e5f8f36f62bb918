//! Payload parity with pi 0.73.1: for every captured azure-openai-responses
//! request in `fixtures/pi-0.73.1-azure/*/requests.jsonl` (made by
//! `fixtures/capture/responses_family_scenarios.py`), rebuild the context pi
//! had from the session file, encode it, and compare with pi's body value
//! for value. The path (deployment URL with `api-version`) and the headers
//! that matter are checked over real HTTP; the Azure environment pi was run
//! with (`command.txt`) is given as options.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use futures::StreamExt;
use pi_ai::{Context, Message, Model, SimpleStreamOptions, StreamOptions, Tool};
use pi_http::WireOptions;
use pi_providers_azure_openai_responses::{
    AzureOpenAiResponsesOptions, AzureOpenAiResponsesProvider, build_request_body,
    parse_deployment_name_map,
};
use pi_test_support::mock_server::{MockResponse, MockServer, RecordedRequest};
use pi_test_support::parity::read_jsonl;
use pretty_assertions::assert_eq;
use serde_json::Value;

/// System prompt and tools as pi sent them.
pub fn context_from(body: &Value, messages: Vec<Message>) -> Context {
    let first = &body["input"][0];
    let system_prompt = matches!(first["role"].as_str(), Some("system" | "developer"))
        .then(|| first["content"].as_str().unwrap().to_owned());
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
    options: AzureOpenAiResponsesOptions,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for folder in common::CAPTURES.folders() {
        let session = common::CAPTURES.session(&folder);
        let requests = read_jsonl(common::CAPTURES.dir().join(&folder).join("requests.jsonl"));
        let (provider, model_id) = common::CAPTURES.command_model(&folder);
        assert_eq!(provider, common::CAPTURES.provider);
        let (model, api_key) = (
            common::CAPTURES.model(&model_id),
            common::CAPTURES.api_key(),
        );
        let env = common::CAPTURES.command_env(&folder);
        let earlier = session
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Assistant(a) if a.provider.as_str() != common::CAPTURES.provider))
            .count();
        for (at, request) in requests.into_iter().enumerate() {
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
            let mut options = AzureOpenAiResponsesOptions::from_simple(&model, simple);
            for (name, value) in &env {
                match name.as_str() {
                    "AZURE_OPENAI_API_VERSION" => options.api_version = Some(value.clone()),
                    "AZURE_OPENAI_DEPLOYMENT_NAME_MAP" => {
                        options.deployment_name =
                            parse_deployment_name_map(value).remove(model.id.as_str());
                    }
                    other => panic!("unexpected variable {other}"),
                }
            }
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
            "a-text-az",
            "b-bash-az",
            "i-image-az",
            "t-think-az",
            "x-handoff-az"
        ]
    );
}

#[test]
fn encoded_bodies_equal_pi_bodies() {
    let cases = cases();
    assert_eq!(cases.len(), 1 + 2 + 1 + 2 + 1);
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
        // Key order too: pi's object is built field by field.
        assert_eq!(
            serde_json::to_string(&ours).unwrap(),
            serde_json::to_string(&case.captured["body"]).unwrap(),
            "{}",
            case.folder
        );
    }
}

/// The anthropic session continued on Azure: thinking became plain
/// message items, the `toolu_` call keeps its id (no item id), and nothing
/// of anthropic's signatures is sent.
#[test]
fn handoff_request_replays_anthropic_turns_as_pi_does() {
    let case = cases()
        .into_iter()
        .find(|c| c.folder == "x-handoff-az")
        .unwrap();
    let input = case.captured["body"]["input"].as_array().unwrap();
    let call = input.iter().find(|i| i["type"] == "function_call").unwrap();
    assert!(call["call_id"].as_str().unwrap().starts_with("toolu_"));
    assert!(call.get("id").is_none());
    assert!(input.iter().all(|i| i["type"] != "reasoning"));
    let text = case.captured["body"].to_string();
    assert!(!text.contains("signature"), "{text}");
    let ours = serde_json::to_value(build_request_body(
        &case.model,
        &case.context,
        &case.options,
    ))
    .unwrap();
    assert_eq!(ours["input"], case.captured["body"]["input"]);
}

async fn send(case: &Case, frames: Vec<String>) -> Vec<RecordedRequest> {
    let server = MockServer::start([MockResponse::sse(frames)])
        .await
        .unwrap();
    let mut model = case.model.clone();
    model.base_url = model
        .base_url
        .replacen("http://127.0.0.1:18777", &server.url(), 1);
    let stream = AzureOpenAiResponsesProvider::new().stream_with(
        &model,
        &case.context,
        case.options.clone(),
    );
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
        for name in ["content-type", "accept", "authorization", "session_id"] {
            assert_eq!(
                ours.header(name),
                pi[name].as_str(),
                "{name} ({})",
                case.folder
            );
        }
        assert_eq!(ours.header("api-key"), Some(case.api_key.as_str()));
        assert_eq!(ours.json(), case.captured["body"], "{}", case.folder);
    }
}
