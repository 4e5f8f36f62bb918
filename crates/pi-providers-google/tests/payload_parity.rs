//! Payload parity with pi 0.73.1: for every captured request of the
//! `google-generative-ai` wire under `fixtures/pi-0.73.1/`, rebuild the
//! context pi had (system prompt and tools from the captured body, messages
//! from the session file, the model from the mock config, the options pi's
//! coding agent passes), encode it, and compare with pi's body value for
//! value. Fields allowed to differ are listed in
//! `docs/payload-differences.md` (section google-generative-ai) and in
//! [`ALLOWED_DIFFERENCES`].

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pi_ai::{Context, Message, SimpleStreamOptions, StreamOptions, ThinkingLevel, Tool};
use pi_http::{Wire, wire_headers};
use pi_providers_google::{GoogleWire, build_request_body, simple_options};
use pi_test_support::parity::{capture_folders, read_jsonl, remove_pointers};
use pi_test_support::{fixtures_dir, mock_api_key, mock_model};
use pretty_assertions::assert_eq;
use serde_json::Value;

/// JSON pointers removed from both bodies before comparing, each with the
/// reason (mirrored in `docs/payload-differences.md`). None so far.
const ALLOWED_DIFFERENCES: &[(&str, &str)] = &[];

/// Both bodies without the allowed differences, compared whole.
fn assert_same_payload(ours: &Value, pis: &Value, label: &str) {
    let (mut ours, mut pis) = (ours.clone(), pis.clone());
    let pointers: Vec<&str> = ALLOWED_DIFFERENCES.iter().map(|(p, _)| *p).collect();
    remove_pointers(&mut ours, &pointers);
    remove_pointers(&mut pis, &pointers);
    assert_eq!(ours, pis, "{label}");
}

/// pi's tools back from a captured body's function declarations.
fn tools_from(body: &Value) -> Option<Vec<Tool>> {
    let declarations = body.pointer("/tools/0/functionDeclarations")?.as_array()?;
    Some(
        declarations
            .iter()
            .map(|d| Tool {
                name: d["name"].as_str().unwrap().to_owned(),
                description: d["description"].as_str().unwrap().to_owned(),
                parameters: d["parametersJsonSchema"].clone(),
            })
            .collect(),
    )
}

/// The session's messages that existed before request `k` (1-based): every
/// user/assistant/toolResult message before the k-th assistant message.
fn messages_before(session: &[Value], k: usize) -> Vec<Message> {
    let mut out = Vec::new();
    let mut assistants = 0;
    for entry in session.iter().filter(|e| e["type"] == "message") {
        let role = entry["message"]["role"].as_str().unwrap_or_default();
        if role == "assistant" {
            assistants += 1;
            if assistants == k {
                break;
            }
        }
        if matches!(role, "user" | "assistant" | "toolResult") {
            out.push(serde_json::from_value(entry["message"].clone()).unwrap());
        }
    }
    out
}

fn thinking_level(session: &[Value]) -> Option<ThinkingLevel> {
    let level = session
        .iter()
        .rev()
        .find(|e| e["type"] == "thinking_level_change")?["thinkingLevel"]
        .clone();
    match level.as_str()? {
        "off" => None,
        other => serde_json::from_value(Value::String(other.to_owned())).ok(),
    }
}

#[test]
fn every_captured_google_request_is_rebuilt_value_for_value() {
    let names = capture_folders("google-generative-ai");
    assert_eq!(names, ["a-text-goog", "b-bash-goog", "c-read-edit-goog"]);
    let folders = names
        .iter()
        .map(|name| fixtures_dir().join("pi-0.73.1").join(name));
    let mut compared = 0;
    for folder in folders {
        let session = read_jsonl(folder.join("session.jsonl"));
        let change = session
            .iter()
            .find(|e| e["type"] == "model_change")
            .unwrap();
        let provider = change["provider"].as_str().unwrap();
        let model = mock_model(provider, change["modelId"].as_str().unwrap());
        let session_id = session[0]["id"].as_str().unwrap().to_owned();
        for (k, request) in read_jsonl(folder.join("requests.jsonl")).iter().enumerate() {
            let label = format!("{} request {}", folder.display(), k + 1);
            let body = &request["body"];
            let context = Context {
                system_prompt: body
                    .pointer("/systemInstruction/parts/0/text")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                messages: messages_before(&session, k + 1),
                tools: tools_from(body),
                ..Context::default()
            };
            let simple = SimpleStreamOptions {
                base: StreamOptions {
                    api_key: Some(mock_api_key(provider)),
                    session_id: Some(session_id.clone()),
                    ..StreamOptions::default()
                },
                reasoning: if model.reasoning {
                    thinking_level(&session)
                } else {
                    None
                },
                ..SimpleStreamOptions::default()
            };
            let options = simple_options(&model, &simple);
            let ours =
                serde_json::to_value(build_request_body(&model, &context, &options)).unwrap();
            assert_same_payload(&ours, body, &label);

            // The request line and the headers that matter.
            let url = GoogleWire.url(&model);
            let headers = wire_headers(&GoogleWire, &model, &context, &options, "k");
            let path = url.strip_prefix("http://127.0.0.1:18777").unwrap();
            assert_eq!(path, request["path"].as_str().unwrap(), "{label}");
            assert_eq!(request["method"], "POST");
            let ours_header = |name: &str| headers.get(name).map(str::to_owned);
            assert_eq!(
                ours_header("content-type").as_deref(),
                request["headers"]["content-type"].as_str(),
                "{label}"
            );
            assert_eq!(ours_header("x-goog-api-key").as_deref(), Some("k"));
            assert_eq!(
                request["headers"]["x-goog-api-key"], "<redacted>",
                "{label}"
            );
            assert!(
                !request["path"].as_str().unwrap().contains("key="),
                "pi sent the key as a header, not in the query"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 6);
}
