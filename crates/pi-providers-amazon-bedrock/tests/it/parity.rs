//! Payload parity with pi 0.73.1: for every captured bedrock-converse-stream
//! request in `fixtures/pi-0.73.1-bedrock/*/requests.jsonl` (made by
//! `fixtures/capture/bedrock_scenarios.py`: the real pi CLI and its AWS SDK
//! pointed at a loopback event-stream mock through the models.json
//! `baseUrl`), rebuild the context pi had from the session file, encode it,
//! and compare with pi's body value for value. Over real HTTP, the path,
//! the SigV4 scope and a signature that verifies, and the bearer header.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::{Duration, SystemTime};

use futures::StreamExt;
use pi_ai::{Context, Message, Model, SimpleStreamOptions, StreamOptions, Tool};
use pi_http::{HttpRequest, Wire};
use pi_providers_amazon_bedrock::{
    AwsCredentials, AwsEnvironment, BedrockOptions, BedrockProvider, BedrockWire, SigningScope,
    sign_request,
};
use pi_test_support::event_stream::AWS_EVENT_STREAM;
use pi_test_support::mock_server::{
    MockResponse, MockServer, RecordedRequest, use_stream_encoding,
};
use pi_test_support::parity::read_jsonl;
use pi_test_support::sse_file_raw_frames;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// System prompt and tools as pi sent them.
fn context_from(body: &Value, messages: Vec<Message>) -> Context {
    let system_prompt = body["system"][0]["text"].as_str().map(str::to_owned);
    let tools = body["toolConfig"]["tools"].as_array().map(|tools| {
        tools
            .iter()
            .map(|t| Tool {
                name: t["toolSpec"]["name"].as_str().unwrap().to_owned(),
                description: t["toolSpec"]["description"].as_str().unwrap().to_owned(),
                parameters: t["toolSpec"]["inputSchema"]["json"].clone(),
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
    context: Context,
    options: SimpleStreamOptions,
}

/// The model a capture request was for: its path names it.
fn model_of(request: &Value) -> Model {
    let path = request["path"].as_str().unwrap();
    let id = path
        .trim_start_matches("/model/")
        .trim_end_matches("/converse-stream")
        .replace("%3A", ":");
    common::CAPTURES.model(&id)
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for folder in common::CAPTURES.folders() {
        let session = common::CAPTURES.session(&folder);
        let requests = read_jsonl(common::CAPTURES.dir().join(&folder).join("requests.jsonl"));
        let earlier = session
            .messages
            .iter()
            .filter(
                |m| matches!(m, Message::Assistant(a) if a.provider.as_str() != common::PROVIDER),
            )
            .count();
        // The SDK's own retries resend the first request.
        let mut answered = 0;
        for request in requests {
            let model = model_of(&request);
            if request["headers"]["amz-sdk-request"]
                .as_str()
                .is_some_and(|h| !h.starts_with("attempt=1;"))
            {
                answered -= 1;
            }
            let context = context_from(
                &request["body"],
                session.messages_before(earlier + answered),
            );
            answered += 1;
            let options = SimpleStreamOptions {
                base: StreamOptions {
                    api_key: Some("mock-bedrock-unused-key".into()),
                    session_id: Some(session.id.clone()),
                    ..StreamOptions::default()
                },
                reasoning: session.thinking_level.filter(|_| model.reasoning),
                ..SimpleStreamOptions::default()
            };
            out.push(Case {
                folder: folder.clone(),
                captured: request,
                model,
                context,
                options,
            });
        }
    }
    out
}

fn capture_env() -> AwsEnvironment {
    AwsEnvironment::from_vars([
        ("AWS_ACCESS_KEY_ID", "AKIDMOCKEXAMPLE"),
        ("AWS_SECRET_ACCESS_KEY", "mock-secret-key"),
        ("AWS_REGION", "us-east-1"),
    ])
}

fn encode(case: &Case) -> Value {
    let wire = BedrockWire::with_env(capture_env());
    let mut options = BedrockOptions::from_simple(&case.model, &case.options);
    let wire = wire.resolve(&case.model, &mut options).unwrap();
    serde_json::to_value(wire.body(&case.model, case.context.view(), &options)).unwrap()
}

#[test]
fn fixture_folders_of_this_wire() {
    assert_eq!(
        common::CAPTURES.folders(),
        [
            "a-text-bed",
            "b-bash-bed",
            "e-http400-bed",
            "e-http500-bed",
            "e-throttle-bed",
            "i-image-bed",
            "k-bearer-bed",
            "t-adaptive-bed",
            "t-think-bed",
            "x-handoff-bed"
        ]
    );
}

#[test]
fn encoded_bodies_equal_pi_bodies() {
    let cases = cases();
    assert_eq!(cases.len(), 1 + 2 + 1 + 3 + 1 + 1 + 1 + 1 + 2 + 1);
    for case in cases {
        assert_eq!(
            encode(&case),
            case.captured["body"],
            "{} request {}",
            case.folder,
            case.captured["seq"]
        );
    }
}

/// What pi's SDK did with the errors: three attempts for a 500 (its retry
/// strategy), one for a 400, and the texts pi stored.
#[test]
fn pi_error_texts_and_attempts() {
    for (folder, attempts, text) in [
        ("e-http500-bed", 3, "Unknown: boom"),
        (
            "e-http400-bed",
            1,
            "Validation error: The model returned the following errors: bad input",
        ),
        (
            "e-throttle-bed",
            1,
            "Throttling error: Too many tokens, please wait before trying again.",
        ),
    ] {
        let requests = read_jsonl(common::CAPTURES.dir().join(folder).join("requests.jsonl"));
        assert_eq!(requests.len(), attempts, "{folder}");
        let session = common::CAPTURES.session(folder);
        let last = session.assistant_json.last().unwrap();
        assert_eq!(last["errorMessage"], json!(text), "{folder}");
        let responses = read_jsonl(common::CAPTURES.dir().join(folder).join("responses.jsonl"));
        if let Some(status) = responses[0]["status"].as_u64() {
            let headers: Vec<(String, String)> = responses[0]["headers"]
                .as_object()
                .map(|h| {
                    h.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
                        .collect()
                })
                .unwrap_or_default();
            let body = responses[0]["body"].as_str().unwrap();
            let ours = pi_providers_amazon_bedrock::http_error_message(
                u16::try_from(status).unwrap(),
                &headers,
                body,
            );
            assert_eq!(ours, text, "{folder}");
        }
    }
}

/// The anthropic session continued on bedrock: `toolu_` ids are already
/// valid, and thinking of the other model became text.
#[test]
fn handoff_request_turns_foreign_thinking_into_text() {
    let case = cases()
        .into_iter()
        .find(|c| c.folder == "x-handoff-bed")
        .unwrap();
    let body = &case.captured["body"];
    assert_eq!(
        body["messages"][1]["content"][1]["toolUse"]["toolUseId"],
        "toolu_01A09q90qw90lq917835lq9A"
    );
    assert!(!body.to_string().contains("reasoningContent"));
    assert_eq!(encode(&case), *body);
}

async fn send(case: &Case, env: AwsEnvironment) -> RecordedRequest {
    use_stream_encoding(AWS_EVENT_STREAM);
    let frames = sse_file_raw_frames(common::WIRE, "a-text-bed-1.sse");
    let server = MockServer::start([MockResponse::sse(frames)])
        .await
        .unwrap();
    let mut model = case.model.clone();
    model.base_url = model
        .base_url
        .replacen("http://127.0.0.1:18777", &server.url(), 1);
    let provider = BedrockProvider::of(BedrockWire::with_env(env));
    let options = BedrockOptions::from_simple(&model, &case.options);
    let events: Vec<_> = provider
        .stream_with(&model, &case.context, options)
        .collect()
        .await;
    let message = pi_test_support::final_message(&events);
    assert_eq!(message.error_message, None);
    assert_eq!(message.text(), "Hello! I am a mock model. 2 + 2 = 4.");
    server.requests().remove(0)
}

#[tokio::test]
async fn over_http_the_path_scope_and_signature_are_what_aws_checks() {
    let case = cases()
        .into_iter()
        .find(|c| c.folder == "a-text-bed")
        .unwrap();
    let request = send(&case, capture_env()).await;
    let pi = &case.captured;
    assert_eq!(request.path, pi["path"].as_str().unwrap());
    assert_eq!(request.header("content-type"), Some("application/json"));
    let authorization = request.header("authorization").unwrap();
    let date = request.header("x-amz-date").unwrap();
    // pi's scope: the same key, region and service (its SDK signs more headers of its own).
    let scope = |text: &str| {
        text.split(", SignedHeaders")
            .next()
            .unwrap()
            .replace(&date[..8], "<date>")
    };
    assert_eq!(
        scope(authorization),
        pi["headers"]["authorization"]
            .as_str()
            .unwrap()
            .split(", SignedHeaders")
            .next()
            .unwrap()
    );
    assert!(
        authorization.contains(
            "SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, Signature="
        ),
        "{authorization}"
    );
    // The server's check: the same request signed at the same time by the
    // same key gives the same signature.
    let time = chrono_like(date);
    let mut again = HttpRequest {
        url: format!("http://{}{}", request.header("host").unwrap(), request.path),
        headers: vec![("content-type".into(), "application/json".into())],
        body: request.body.clone().into(),
    };
    let credentials = AwsCredentials {
        access_key_id: "AKIDMOCKEXAMPLE".into(),
        secret_access_key: "mock-secret-key".into(),
        session_token: None,
    };
    sign_request(
        &mut again,
        &credentials,
        SigningScope::bedrock("us-east-1"),
        time,
    )
    .unwrap();
    let resigned = again
        .headers
        .iter()
        .find(|(n, _)| n == "authorization")
        .unwrap();
    assert_eq!(resigned.1, authorization);
    let sha = again
        .headers
        .iter()
        .find(|(n, _)| n == "x-amz-content-sha256")
        .unwrap();
    assert_eq!(request.header("x-amz-content-sha256"), Some(sha.1.as_str()));
}

#[tokio::test]
async fn over_http_a_bedrock_api_key_is_a_bearer_token() {
    let case = cases()
        .into_iter()
        .find(|c| c.folder == "k-bearer-bed")
        .unwrap();
    let env = AwsEnvironment::from_vars([
        ("AWS_BEARER_TOKEN_BEDROCK", "mock-bedrock-bearer-token"),
        ("AWS_REGION", "us-west-2"),
    ]);
    let request = send(&case, env).await;
    assert_eq!(
        request.header("authorization"),
        case.captured["headers"]["authorization"].as_str()
    );
    assert_eq!(request.header("x-amz-date"), None);
    assert_eq!(request.path, case.captured["path"].as_str().unwrap());
}

/// `20261130T234110Z` as a time.
fn chrono_like(amz_date: &str) -> SystemTime {
    let num = |range: std::ops::Range<usize>| amz_date[range].parse::<i64>().unwrap();
    let (y, m, d) = (num(0..4), num(4..6), num(6..8));
    let (hh, mm, ss) = (num(9..11), num(11..13), num(13..15));
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + hh * 3600 + mm * 60 + ss;
    SystemTime::UNIX_EPOCH + Duration::from_secs(u64::try_from(secs).unwrap())
}
