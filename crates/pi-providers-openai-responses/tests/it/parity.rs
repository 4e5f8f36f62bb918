//! Payload parity with pi 0.73.1: for every request pi sent on this wire
//! (`fixtures/pi-0.73.1/*-resp`), the context pi had is rebuilt from the
//! session file and the captured body, sent through `stream_simple` to a
//! loopback server, and the body and headers the server received are
//! compared with pi's (fields listed in `docs/payload-differences.md`
//! removed from both sides).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use futures::StreamExt;
use pi_ai::{Context, SimpleStreamOptions, StreamFunction, StreamOptions, Tool};
use pi_providers_openai_responses::OpenAiResponsesProvider;
use pi_test_support::fixtures_dir;
use pi_test_support::mock_server::{MockResponse, MockServer};
use pi_test_support::parity::{CapturedSession, capture_folders, read_jsonl, remove_pointers};
use pretty_assertions::assert_eq;

/// JSON pointers of body fields allowed to differ from pi's (see
/// `docs/payload-differences.md`, section openai-responses): none.
const IGNORED_BODY_FIELDS: &[&str] = &[];

/// Headers that must equal pi's captured values.
const SAME_HEADERS: &[&str] = &[
    "content-type",
    "accept",
    "session_id",
    "x-client-request-id",
];

/// Checks every captured request of `folder`.
async fn check_folder(folder: &str) {
    let dir = fixtures_dir().join("pi-0.73.1").join(folder);
    let requests = read_jsonl(dir.join("requests.jsonl"));
    let responses = read_jsonl(dir.join("responses.jsonl"));
    let session = CapturedSession::load(folder);
    let session_id = session.id.clone();
    let mut model = session.model();
    let api_key = session.api_key();
    assert!(!requests.is_empty());

    for (k, captured) in requests.iter().enumerate() {
        assert_eq!(captured["wire"], "openai-responses");
        let pi_body = &captured["body"];
        let system_prompt = pi_body["input"][0]["content"].as_str().unwrap().to_owned();
        let tools: Vec<Tool> = pi_body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| Tool {
                name: t["name"].as_str().unwrap().into(),
                description: t["description"].as_str().unwrap().into(),
                parameters: t["parameters"].clone(),
            })
            .collect();
        let context = Context {
            system_prompt: Some(system_prompt),
            // Request k carries everything before the k-th assistant message.
            messages: session.messages_before(k),
            tools: Some(tools),
            extra: Default::default(),
        };

        let frames: Vec<String> = responses[k]["sse"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_owned())
            .collect();
        let server = MockServer::start([MockResponse::sse(frames)])
            .await
            .unwrap();
        model.base_url = format!("{}/v1", server.url());
        // What pi's coding agent passes: the session id, the key, and the
        // thinking level when the model reasons.
        let reasoning = session.thinking_level.filter(|_| model.reasoning);
        let options = SimpleStreamOptions {
            base: StreamOptions {
                api_key: Some(api_key.clone()),
                session_id: Some(session_id.clone()),
                ..StreamOptions::default()
            },
            reasoning,
            thinking_budgets: None,
        };
        let events: Vec<_> = OpenAiResponsesProvider::new()
            .stream_simple(&model, context.view(), options)
            .collect()
            .await;
        assert!(
            events.last().is_some_and(|e| e.kind() == "done"),
            "{folder} #{k}"
        );

        let ours = &server.requests()[0];
        let label = format!("{folder} request {}", k + 1);
        assert_eq!(ours.path, captured["path"].as_str().unwrap(), "{label}");
        let (mut ours_body, mut pis_body) = (ours.json(), pi_body.clone());
        remove_pointers(&mut ours_body, IGNORED_BODY_FIELDS);
        remove_pointers(&mut pis_body, IGNORED_BODY_FIELDS);
        assert_eq!(ours_body, pis_body, "{label}");
        for name in SAME_HEADERS {
            assert_eq!(
                ours.header(name),
                captured["headers"][*name].as_str(),
                "{label}: header {name}"
            );
        }
        assert_eq!(captured["headers"]["authorization"], "<redacted>");
        assert_eq!(
            ours.header("authorization"),
            Some(format!("Bearer {api_key}").as_str()),
            "{label}"
        );
    }
}

#[tokio::test]
async fn a_text_resp() {
    check_folder("a-text-resp").await;
}

#[tokio::test]
async fn b_bash_resp() {
    check_folder("b-bash-resp").await;
}

#[tokio::test]
async fn c_read_edit_resp() {
    check_folder("c-read-edit-resp").await;
}

#[tokio::test]
async fn h_json_parallel_resp() {
    check_folder("h-json-parallel-resp").await;
}

#[test]
fn every_folder_on_this_wire_is_checked() {
    assert_eq!(
        capture_folders("openai-responses"),
        [
            "a-text-resp",
            "b-bash-resp",
            "c-read-edit-resp",
            "h-json-parallel-resp"
        ]
    );
}
