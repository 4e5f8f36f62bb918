//! Payload parity with pi 0.73.1: for every captured openai-completions
//! request in `fixtures/pi-0.73.1/*/requests.jsonl`, rebuild the context pi
//! had from the session file, encode it, and compare with pi's body value
//! for value (minus the fields listed in `docs/payload-differences.md`).
//! The important headers are checked over real HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use futures::StreamExt;
use pi_ai::{Context, Message, Model, SimpleStreamOptions, StreamFunction, StreamOptions, Tool};
use pi_providers_openai_completions::{
    OpenAiCompletionsOptions, OpenAiCompletionsProvider, build_request_body,
};
use pi_test_support::fixtures_dir;
use pi_test_support::mock_server::{MockResponse, MockServer};
use pi_test_support::parity::{
    CapturedSession, capture_folders, listed_differences, read_jsonl, remove_pointers,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const WIRE: &str = "openai-completions";

fn pi_dir() -> std::path::PathBuf {
    fixtures_dir().join("pi-0.73.1")
}

/// System prompt and tools as pi sent them.
fn context_from(body: &Value, messages: Vec<Message>) -> Context {
    let first = &body["messages"][0];
    let system_prompt = matches!(first["role"].as_str(), Some("system" | "developer"))
        .then(|| first["content"].as_str().unwrap().to_owned());
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

fn simple_options(model: &Model, session: &CapturedSession, api_key: &str) -> SimpleStreamOptions {
    SimpleStreamOptions {
        base: StreamOptions {
            api_key: Some(api_key.to_owned()),
            session_id: Some(session.id.clone()),
            ..StreamOptions::default()
        },
        reasoning: if model.reasoning {
            session.thinking_level
        } else {
            None
        },
        ..SimpleStreamOptions::default()
    }
}

/// One captured request with what we rebuild for it.
struct Case {
    folder: String,
    seq: u64,
    captured: Value,
    model: Model,
    api_key: String,
    context: Context,
    options: SimpleStreamOptions,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for folder in capture_folders(WIRE) {
        let session = CapturedSession::load(&folder);
        let (model, api_key) = (session.model(), session.api_key());
        let mut attempt = 0;
        for request in read_jsonl(pi_dir().join(&folder).join("requests.jsonl")) {
            // SDK retries (x-stainless-retry-count > 0) resend the same call.
            if request["headers"]["x-stainless-retry-count"] == "0" {
                attempt += 1;
            }
            assert_eq!(request["body"]["model"], json!(session.model_id));
            let context = context_from(&request["body"], session.messages_before(attempt - 1));
            out.push(Case {
                folder: folder.clone(),
                seq: request["seq"].as_u64().unwrap(),
                options: simple_options(&model, &session, &api_key),
                captured: request,
                model: model.clone(),
                api_key: api_key.clone(),
                context,
            });
        }
    }
    out
}

#[test]
fn fixture_folders_of_this_wire() {
    assert_eq!(
        capture_folders(WIRE),
        [
            "a-text-oai",
            "b-bash-oai",
            "c-read-edit-oai",
            "f-continue-oai",
            "g-http500-oai",
            "h-json-bash-oai"
        ]
    );
}

#[test]
fn encoded_bodies_equal_pi_bodies() {
    let allowed = listed_differences(WIRE);
    let cases = cases();
    assert_eq!(cases.len(), 1 + 2 + 3 + 2 + 12 + 2);
    for case in cases {
        let options = OpenAiCompletionsOptions::from_simple(&case.model, &case.options);
        let mut ours =
            serde_json::to_value(build_request_body(&case.model, &case.context, &options)).unwrap();
        let mut theirs = case.captured["body"].clone();
        remove_pointers(&mut ours, &allowed);
        remove_pointers(&mut theirs, &allowed);
        assert_eq!(ours, theirs, "{} request {}", case.folder, case.seq);
    }
}

/// Runs the case's call against a loopback server and returns what it received.
async fn send(
    case: &Case,
    response: MockResponse,
) -> Vec<pi_test_support::mock_server::RecordedRequest> {
    let server = MockServer::start([response]).await.unwrap();
    let mut model = case.model.clone();
    let captured_base = "http://127.0.0.1:18777";
    assert!(model.base_url.starts_with(captured_base));
    model.base_url = model.base_url.replacen(captured_base, &server.url(), 1);
    let stream = OpenAiCompletionsProvider::new().stream_simple(
        &model,
        case.context.view(),
        case.options.clone(),
    );
    let _events: Vec<_> = stream.collect().await;
    server.requests()
}

#[tokio::test]
async fn requests_over_http_match_pi_path_headers_and_body() {
    let allowed = listed_differences(WIRE);
    for case in cases().into_iter().filter(|c| c.folder != "g-http500-oai") {
        let responses = read_jsonl(pi_dir().join(&case.folder).join("responses.jsonl"));
        let recorded = responses.iter().find(|r| r["seq"] == case.seq).unwrap();
        let frames: Vec<String> = recorded["sse"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_owned())
            .collect();
        let requests = send(&case, MockResponse::sse(frames)).await;
        assert_eq!(requests.len(), 1);
        assert_headers_match(&case, &requests[0]);
        let mut ours = requests[0].json();
        let mut theirs = case.captured["body"].clone();
        remove_pointers(&mut ours, &allowed);
        remove_pointers(&mut theirs, &allowed);
        assert_eq!(ours, theirs, "{} request {}", case.folder, case.seq);
    }
}

fn assert_headers_match(case: &Case, ours: &pi_test_support::mock_server::RecordedRequest) {
    let pi = &case.captured["headers"];
    assert_eq!(ours.method, case.captured["method"].as_str().unwrap());
    assert_eq!(ours.path, case.captured["path"].as_str().unwrap());
    for name in ["content-type", "accept"] {
        assert_eq!(
            ours.header(name),
            pi[name].as_str(),
            "{name} ({} {})",
            case.folder,
            case.seq
        );
    }
    assert_eq!(
        pi["authorization"],
        json!("<redacted>"),
        "pi authenticated with a bearer header"
    );
    assert_eq!(
        ours.header("authorization"),
        Some(format!("Bearer {}", case.api_key).as_str())
    );
}

#[tokio::test]
async fn http_500_scenario_matches_pi_retries() {
    // pi's SDK sent each call three times (x-stainless-retry-count 0, 1, 2)
    // before giving up with the provider's message.
    let case = cases()
        .into_iter()
        .find(|c| c.folder == "g-http500-oai")
        .unwrap();
    let responses = read_jsonl(pi_dir().join("g-http500-oai").join("responses.jsonl"));
    let error = &responses[0];
    let body = serde_json::to_string(&error["body"]).unwrap();
    let server = MockServer::start([MockResponse::json(
        error["status"].as_u64().unwrap() as u16,
        body,
    )])
    .await
    .unwrap();
    let mut model = case.model.clone();
    model.base_url = model
        .base_url
        .replacen("http://127.0.0.1:18777", &server.url(), 1);
    let message = OpenAiCompletionsProvider::new()
        .stream_simple(&model, case.context.view(), case.options.clone())
        .result()
        .await;
    let stderr = std::fs::read_to_string(pi_dir().join("g-http500-oai/stderr.txt")).unwrap();
    assert_eq!(message.error_message.as_deref(), Some(stderr.trim()));
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    for request in &requests {
        assert_headers_match(&case, request);
        assert_eq!(request.json(), case.captured["body"]);
    }
}
