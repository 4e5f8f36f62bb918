//! Parity with pi 0.73.1: every captured google-vertex request in
//! `fixtures/pi-0.73.1-vertex/*/requests.jsonl` (made by
//! `fixtures/capture/vertex_scenarios.py`) is rebuilt from the session pi
//! wrote and compared value for value; then sent over real HTTP (API key,
//! or ADC with a loopback token endpoint) to check the path and the auth
//! headers too.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use futures::StreamExt;
use pi_ai::{Context, Message, Model, SimpleStreamOptions, StreamFunction, StreamOptions, Tool};
use pi_http::WireOptions;
use pi_providers_google::SKIP_THOUGHT_SIGNATURE;
use pi_providers_google_vertex::{
    VertexEnv, VertexOptions, VertexProvider, VertexWire, build_request_body,
};
use pi_test_support::fixtures::rebase;
use pi_test_support::mock_server::{MockResponse, MockServer, RecordedRequest};
use pi_test_support::parity::read_jsonl;
use pretty_assertions::assert_eq;
use serde_json::Value;

/// System prompt and tools as pi sent them.
fn context_from(body: &Value, messages: Vec<Message>) -> Context {
    let tools = body
        .pointer("/tools/0/functionDeclarations")
        .and_then(Value::as_array)
        .map(|declarations| {
            declarations
                .iter()
                .map(|d| Tool {
                    name: d["name"].as_str().unwrap().to_owned(),
                    description: d["description"].as_str().unwrap().to_owned(),
                    parameters: d["parametersJsonSchema"].clone(),
                })
                .collect()
        });
    Context {
        system_prompt: body
            .pointer("/systemInstruction/parts/0/text")
            .and_then(Value::as_str)
            .map(str::to_owned),
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

/// The model id in a captured path (`.../models/<id>:streamGenerateContent...`).
fn model_id(path: &str) -> &str {
    let tail = path.rsplit("/models/").next().unwrap();
    tail.split(':').next().unwrap()
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for folder in common::CAPTURES.folders() {
        let provider = if folder.starts_with("d-adc") {
            "mock-vtx-adc"
        } else {
            "mock-vtx"
        };
        let session = common::CAPTURES.session(&folder);
        let requests = read_jsonl(common::CAPTURES.dir().join(&folder).join("requests.jsonl"));
        let model =
            common::CAPTURES.model(provider, model_id(requests[0]["path"].as_str().unwrap()));
        // A handed-off session starts with another provider's answers.
        let earlier = session
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Assistant(a) if a.provider.as_str() != provider))
            .count();
        for (at, request) in requests.into_iter().enumerate() {
            let context = context_from(&request["body"], session.messages_before(earlier + at));
            let options = SimpleStreamOptions {
                base: StreamOptions {
                    api_key: Some(common::CAPTURES.api_key(provider)),
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
                api_key: common::CAPTURES.api_key(provider),
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
            "a-text-vtx",
            "b-bash-vtx",
            "d-adc-vtx",
            "g3-think-vtx",
            "t-think-vtx",
            "x-handoff-vtx"
        ]
    );
}

#[test]
fn encoded_bodies_equal_pi_bodies() {
    let cases = cases();
    assert_eq!(cases.len(), 1 + 2 + 2 + 2 + 1 + 1);
    for case in cases {
        let options = VertexOptions::from_simple(&case.model, case.options.clone());
        let ours =
            serde_json::to_value(build_request_body(&case.model, &case.context, &options)).unwrap();
        let ours = without_skip_sentinel(ours, &case.captured["body"]);
        assert_eq!(
            ours, case.captured["body"],
            "{} request {}",
            case.folder, case.captured["seq"]
        );
    }
}

/// The values Vertex's own rules decide, as pi sent them.
#[test]
fn vertex_specific_values_in_pi_s_bodies() {
    let cases = cases();
    let body = |folder: &str, seq: u64| {
        cases
            .iter()
            .find(|c| c.folder == folder && c.captured["seq"] == seq)
            .unwrap()
            .captured["body"]
            .clone()
    };
    // Flash-Lite at minimal: the 2.5 Flash table (the Gemini API's says 512).
    assert_eq!(
        body("t-think-vtx", 1)["generationConfig"]["thinkingConfig"]["thinkingBudget"],
        128
    );
    // The signed call is replayed with its signature on the same model.
    let replayed = body("g3-think-vtx", 2);
    let call = replayed["contents"][1]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p.get("functionCall").is_some())
        .unwrap()
        .clone();
    assert_eq!(
        call["thoughtSignature"],
        "bW9jay10aG91Z2h0LXNpZ25hdHVyZS0wMDAx"
    );
    // pi 0.73.1 sends anthropic's calls unsigned to Gemini 3; we add the
    // skip sentinel (the documented difference).
    let handoff = cases.iter().find(|c| c.folder == "x-handoff-vtx").unwrap();
    assert!(
        !handoff.captured["body"]
            .to_string()
            .contains(SKIP_THOUGHT_SIGNATURE)
    );
    let options = VertexOptions::from_simple(&handoff.model, handoff.options.clone());
    let ours = build_request_body(&handoff.model, &handoff.context, &options);
    assert!(
        serde_json::to_string(&ours)
            .unwrap()
            .contains(SKIP_THOUGHT_SIGNATURE)
    );
}

/// `ours` without the one documented difference (docs/payload-differences.md,
/// google-vertex): the shared Gemini encoder signs an unsigned call replayed
/// to a Gemini 3 model with the skip sentinel, which pi 0.73.1 no longer
/// sends. Only sentinel signatures are removed, and only where pi's part
/// has no signature.
fn without_skip_sentinel(mut ours: Value, pis: &Value) -> Value {
    let Some(contents) = ours["contents"].as_array_mut() else {
        return ours;
    };
    for (c, content) in contents.iter_mut().enumerate() {
        for (p, part) in content["parts"]
            .as_array_mut()
            .into_iter()
            .flatten()
            .enumerate()
        {
            if part["thoughtSignature"] == SKIP_THOUGHT_SIGNATURE {
                assert!(
                    pis["contents"][c]["parts"][p]
                        .get("thoughtSignature")
                        .is_none(),
                    "pi signed this call"
                );
                part.as_object_mut().unwrap().remove("thoughtSignature");
            }
        }
    }
    ours
}

fn frames_of(case: &Case) -> Vec<String> {
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
    recorded["sse"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_owned())
        .collect()
}

/// Sends `case` the way pi's capture did: API key straight to the model
/// server; ADC through a token endpoint and `GOOGLE_VERTEX_BASE_URL`.
async fn send(case: &Case) -> (RecordedRequest, Vec<RecordedRequest>) {
    let server = MockServer::start([MockResponse::sse(frames_of(case))])
        .await
        .unwrap();
    let mut model = case.model.clone();
    let dir = tempfile::tempdir().unwrap();
    let tokens = MockServer::start([MockResponse::json(
        200,
        common::token_answer("ya29.parity-token", 3599),
    )])
    .await
    .unwrap();
    let provider = if case.folder.starts_with("d-adc") {
        let credentials = common::write_credentials(
            dir.path(),
            &common::service_account_at(&format!("{}/token", tokens.url())),
        );
        VertexProvider::of(VertexWire::with_env(common::adc_env(
            &credentials,
            &server.url(),
        )))
    } else {
        model.base_url = rebase(&model.base_url, &server.url());
        VertexProvider::of(VertexWire::with_env(VertexEnv::fixed::<&str, &str>([])))
    };
    let stream = provider.stream_simple(&model, case.context.view(), case.options.clone());
    let _events: Vec<_> = stream.collect().await;
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{}", case.folder);
    (requests[0].clone(), tokens.requests())
}

#[tokio::test]
async fn requests_over_http_match_pi_path_headers_and_body() {
    for case in cases() {
        let (ours, token_requests) = send(&case).await;
        let pi = &case.captured["headers"];
        let label = format!("{} request {}", case.folder, case.captured["seq"]);
        assert_eq!(ours.method, "POST");
        assert_eq!(
            ours.path,
            case.captured["path"].as_str().unwrap(),
            "{label}"
        );
        assert_eq!(ours.header("content-type"), pi["content-type"].as_str());
        if case.folder.starts_with("d-adc") {
            assert_eq!(pi["authorization"], "Bearer <token>");
            assert_eq!(
                ours.header("authorization"),
                Some("Bearer ya29.parity-token")
            );
            assert_eq!(ours.header("x-goog-api-key"), None);
            assert_eq!(token_requests.len(), 1, "{label}");
        } else {
            assert_eq!(pi["x-goog-api-key"], "<redacted>");
            assert_eq!(ours.header("x-goog-api-key"), Some(case.api_key.as_str()));
            assert_eq!(ours.header("authorization"), None);
            assert!(token_requests.is_empty(), "{label}");
        }
        let body = without_skip_sentinel(ours.json(), &case.captured["body"]);
        assert_eq!(body, case.captured["body"], "{label}");
    }
}

/// pi's token request (recorded through the capture's proxy) and ours:
/// same form fields, JWT header and claims; both signatures verify.
#[tokio::test]
async fn the_token_request_matches_pi_s() {
    let pi = read_jsonl(
        common::CAPTURES
            .dir()
            .join("d-adc-vtx/token_requests.jsonl"),
    );
    assert_eq!(pi.len(), 2, "pi fetched a token per model call");
    let pi = &pi[0];
    assert_eq!(pi["signature_verifies"], true);
    let case = cases()
        .into_iter()
        .find(|c| c.folder == "d-adc-vtx")
        .unwrap();
    let (_, token_requests) = send(&case).await;
    let ours = &token_requests[0];
    assert_eq!(ours.path, "/token");
    assert_eq!(ours.header("content-type"), pi["content-type"].as_str());
    let form: Vec<(String, String)> = url_form(&ours.body);
    let mut keys: Vec<&str> = form.iter().map(|(k, _)| k.as_str()).collect();
    keys.sort_unstable();
    assert_eq!(serde_json::to_value(&keys).unwrap(), pi["form_keys"]);
    let value = |name: &str| form.iter().find(|(k, _)| k == name).unwrap().1.clone();
    assert_eq!(value("grant_type"), pi["grant_type"].as_str().unwrap());
    let jwt = value("assertion");
    let (header, claims) = jwt_parts(&jwt);
    assert_eq!(header, pi["jwt_header"]);
    for field in ["iss", "scope", "aud"] {
        assert_eq!(claims[field], pi["jwt_claims"][field], "{field}");
    }
    let lifetime = |c: &Value| c["exp"].as_u64().unwrap() - c["iat"].as_u64().unwrap();
    assert_eq!(lifetime(&claims), lifetime(&pi["jwt_claims"]));
}

fn url_form(body: &[u8]) -> Vec<(String, String)> {
    url::form_urlencoded::parse(body).into_owned().collect()
}

fn jwt_parts(jwt: &str) -> (Value, Value) {
    use base64::Engine;
    let mut parts = jwt.split('.');
    let mut decode = || {
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(parts.next().unwrap())
            .unwrap();
        serde_json::from_slice::<Value>(&bytes).unwrap()
    };
    (decode(), decode())
}
