//! Payload parity with pi 0.73.1: for every captured `anthropic-messages`
//! request under `fixtures/pi-0.73.1/`, rebuild the context and options pi
//! had, encode, and compare with pi's body value for value (minus the fields
//! listed in `docs/payload-differences.md`), and compare the headers that matter.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pi_ai::{Context, SimpleStreamOptions, StreamOptions, Tool};
use pi_http::wire_headers;
use pi_providers_anthropic::simple_to_anthropic;
use pi_providers_anthropic::{AnthropicWire, build_request_body};
use pi_test_support::fixture as fixtures;
use pi_test_support::parity::{CapturedSession, listed_differences, read_jsonl, remove_pointers};
use pretty_assertions::assert_eq;
use serde_json::Value;

const FOLDERS: [&str; 5] = [
    "a-text-ant",
    "b-bash-ant",
    "c-read-edit-ant",
    "f-continue-ant",
    "h-json-thinking-ant",
];

/// pi's tools, from the captured body's definitions.
fn tools_from_body(body: &Value) -> Vec<Tool> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| Tool {
            name: t["name"].as_str().unwrap().to_owned(),
            description: t["description"].as_str().unwrap().to_owned(),
            parameters: t["input_schema"].clone(),
        })
        .collect()
}

#[test]
fn encoded_bodies_and_headers_equal_pi_captures() {
    let differences = listed_differences("anthropic-messages");
    let mut compared = 0;
    for folder in FOLDERS {
        let session = CapturedSession::load(folder);
        let (model, api_key) = (session.model(), session.api_key());
        let requests = read_jsonl(fixtures("pi-0.73.1").join(folder).join("requests.jsonl"));
        for (k, request) in requests.iter().enumerate() {
            assert_eq!(request["wire"], "anthropic-messages");
            assert_eq!(request["path"], "/v1/messages");
            let pi_body = &request["body"];
            let context = Context {
                system_prompt: Some(pi_body["system"][0]["text"].as_str().unwrap().to_owned()),
                messages: session.messages_before(k),
                tools: Some(tools_from_body(pi_body)),
                ..Context::default()
            };
            let options = SimpleStreamOptions {
                base: StreamOptions {
                    api_key: Some(api_key.clone()),
                    session_id: Some(session.id.clone()),
                    ..StreamOptions::default()
                },
                reasoning: session.thinking_level.filter(|_| model.reasoning),
                thinking_budgets: None,
            };
            let options = simple_to_anthropic(&model, options);
            let mut ours =
                serde_json::to_value(build_request_body(&model, &context, &options)).unwrap();
            let mut theirs = pi_body.clone();
            remove_pointers(&mut ours, &differences);
            remove_pointers(&mut theirs, &differences);
            assert_eq!(ours, theirs, "{folder} request {}", k + 1);
            // Key order too: the serialized bodies are byte-identical.
            assert_eq!(
                serde_json::to_string(&ours).unwrap(),
                serde_json::to_string(&theirs).unwrap(),
                "{folder} request {} key order",
                k + 1
            );
            if differences.is_empty() {
                let length: usize = request["headers"]["content-length"]
                    .as_str()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert_eq!(
                    serde_json::to_vec(&ours).unwrap().len(),
                    length,
                    "{folder} request {}",
                    k + 1
                );
            }

            let headers =
                wire_headers(&AnthropicWire, &model, &context, &options, &api_key).into_pairs();
            let ours_header = |name: &str| {
                headers
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.as_str())
            };
            for name in [
                "accept",
                "anthropic-version",
                "anthropic-beta",
                "anthropic-dangerous-direct-browser-access",
                "content-type",
            ] {
                assert_eq!(
                    ours_header(name),
                    request["headers"][name].as_str(),
                    "{folder} request {} header {name}",
                    k + 1
                );
            }
            assert_eq!(request["headers"]["x-api-key"], "<redacted>");
            assert_eq!(ours_header("x-api-key"), Some(api_key.as_str()));
            assert_eq!(ours_header("authorization"), None);
            compared += 1;
        }
    }
    assert_eq!(compared, 11, "every captured anthropic request is compared");
}
