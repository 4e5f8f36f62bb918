//! Payload parity with pi 0.73.1: for every captured request of the
//! `google-generative-ai` wire under `fixtures/pi-0.73.1/`, rebuild the
//! context pi had (system prompt and tools from the captured body, messages
//! from the session file, the model from the mock config, the options pi's
//! coding agent passes), encode it, and compare with pi's body value for
//! value. Fields allowed to differ are listed in
//! `docs/payload-differences.md` (section google-generative-ai) and in
//! [`ALLOWED_DIFFERENCES`].

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pi_ai::{Context, SimpleStreamOptions, StreamOptions, Tool};
use pi_http::{Wire, wire_headers};
use pi_providers_google::{GoogleWire, build_request_body, simple_options};
use pi_test_support::fixtures_dir;
use pi_test_support::parity::{CapturedSession, capture_folders, read_jsonl, remove_pointers};
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

#[test]
fn every_captured_google_request_is_rebuilt_value_for_value() {
    let names = capture_folders("google-generative-ai");
    assert_eq!(names, ["a-text-goog", "b-bash-goog", "c-read-edit-goog"]);
    let folders = names
        .iter()
        .map(|name| fixtures_dir().join("pi-0.73.1").join(name));
    let mut compared = 0;
    for folder in folders {
        let session = CapturedSession::load(&folder.file_name().unwrap().to_string_lossy());
        let model = session.model();
        for (k, request) in read_jsonl(folder.join("requests.jsonl")).iter().enumerate() {
            let label = format!("{} request {}", folder.display(), k + 1);
            let body = &request["body"];
            let context = Context {
                system_prompt: body
                    .pointer("/systemInstruction/parts/0/text")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                messages: session.messages_before(k),
                tools: tools_from(body),
                ..Context::default()
            };
            let simple = SimpleStreamOptions {
                base: StreamOptions {
                    api_key: Some(session.api_key()),
                    session_id: Some(session.id.clone()),
                    ..StreamOptions::default()
                },
                reasoning: session.thinking_level.filter(|_| model.reasoning),
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
