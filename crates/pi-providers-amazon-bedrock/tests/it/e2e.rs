//! End to end over real loopback HTTP: the shared scenarios of
//! `pi-test-support` (text, tool call, 500 and 429 retried as pi's AWS SDK
//! retries them, cut and cancelled streams, missing key, header merge,
//! registration, stream endings, reasoning), the mock writing AWS
//! event-stream bodies. The wire runs with a fixed environment whose Bedrock
//! API key (`AWS_BEARER_TOKEN_BEDROCK`) is the adapter's key, so the
//! `authorization` check applies; SigV4 over HTTP is checked in `parity.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use pi_ai::{Api, Model, StopReason, ThinkingLevel};
use pi_providers_amazon_bedrock::{AwsEnvironment, BedrockProvider, BedrockWire, SOURCE_ID};
use pi_test_support::e2e::{
    self, CallId, Ending, EofCase, ErrorText, PartialCase, ServerErrorCase, TextCase, ThinkingCase,
    ToolCallCase, WireAdapter,
};
use pi_test_support::event_stream::AWS_EVENT_STREAM;
use pi_test_support::mock_server::use_stream_encoding;
use pretty_assertions::assert_eq;
use serde_json::json;

const KEY: &str = "bedrock-test-key";

fn served(url: &str) -> Model {
    common::CAPTURES.model_at(common::NOVA, url)
}

/// The Nova mock's id (the suite checks one path) named as a Claude 4.5
/// model: as for an application inference profile, pi tells the family from
/// the name, so thinking settings and cache points apply.
fn served_sonnet(url: &str) -> Model {
    let mut model = common::CAPTURES.model_at(common::NOVA, url);
    model.name = "Mock Claude Sonnet 4.5".into();
    model.max_tokens = 8192;
    model
}

/// The wire with a Bedrock API key in its environment, registered as the
/// app registers it.
fn register() {
    let env = AwsEnvironment::from_vars([("AWS_BEARER_TOKEN_BEDROCK", KEY)]);
    BedrockProvider::of(BedrockWire::with_env(env))
        .register(Api::BEDROCK_CONVERSE_STREAM, SOURCE_ID);
}

fn adapter() -> WireAdapter {
    use_stream_encoding(AWS_EVENT_STREAM);
    WireAdapter {
        api: Api::BEDROCK_CONVERSE_STREAM,
        register,
        sse_dir: common::WIRE,
        model: served,
        api_key: KEY.into(),
        auth_header: "authorization",
        auth_prefix: "Bearer ",
        path: "/model/mock.nova-v1%3A0/converse-stream",
        headers: vec![
            ("content-type", Some("application/json")),
            ("x-amz-date", None),
        ],
        encode: e2e::wire_body::<BedrockWire>,
        text: TextCase {
            file: "a-text-bed-1.sse",
            kinds: None,
            text: "Hello! I am a mock model. 2 + 2 = 4.",
            response_id: None,
            usage: (1200, 14, 1214),
            body: vec![
                ("/inferenceConfig/maxTokens", json!(4096)),
                ("/system/0/text", json!("Be brief.")),
                ("/toolConfig/tools/0/toolSpec/name", json!("bash")),
            ],
        },
        partial: PartialCase {
            frames: 4,
            text: "Hello! I am ",
        },
        tool_call: ToolCallCase {
            file: "b-bash-bed-1.sse",
            kinds: None,
            id: CallId::Exact("tooluse_Ab3dE5gH7xYz"),
            name: "bash",
            arguments: json!({"command": "ls"}),
        },
        server_error: ServerErrorCase {
            body: r#"{"message":"boom"}"#,
            message: "Unknown: boom".into(),
            attempts: 3,
        },
        rate_limit_body: r#"{"message":"Too many requests, please wait before trying again."}"#,
        endings: vec![
            Ending {
                file: "no-message-stop.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("No stop event follows."),
                error: ErrorText::Exact("mock-bed: Stream ended without messageStop"),
                total_tokens: None,
            },
            Ending {
                file: "unknown-stop-reason.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Blocked by"),
                error: ErrorText::Exact("An unknown error occurred"),
                total_tokens: Some(12),
            },
            Ending {
                file: "e-throttle-bed-1.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Partial answer"),
                error: ErrorText::Exact(
                    "Throttling error: Too many tokens, please wait before trying again.",
                ),
                total_tokens: None,
            },
            Ending {
                file: "invalid-json.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Before the bad event"),
                error: ErrorText::Prefix("Invalid JSON in the Bedrock contentBlockDelta event: "),
                total_tokens: None,
            },
            Ending {
                file: "max-tokens.sse",
                frames: None,
                stop: StopReason::Length,
                text: Some("Cut short by the limit"),
                error: ErrorText::None,
                total_tokens: Some(4106),
            },
        ],
        // A recorded answer cut just before its terminal event: an error
        // (pi 0.73.1 calls it complete; see docs/payload-differences.md).
        eof: EofCase {
            file: "eof-before-terminal-event.sse",
            text: "Hello! I am a mock model. 2 + 2 = 4.",
            error: "mock-bed: Stream ended without messageStop",
        },
        thinking: ThinkingCase {
            file: "t-think-bed-1.sse",
            model: served_sonnet,
            reasoning: ThinkingLevel::High,
            body: vec![
                (
                    "/additionalModelRequestFields/thinking/type",
                    json!("enabled"),
                ),
                (
                    "/additionalModelRequestFields/thinking/budget_tokens",
                    json!(7168),
                ),
                ("/inferenceConfig/maxTokens", json!(8192)),
                ("/system/1/cachePoint/type", json!("default")),
            ],
            check: None,
        },
    }
}

pi_test_support::wire_e2e_suite!(adapter());

/// A body that ends inside a message is a stream error naming the provider,
/// keeping the text; so is a corrupted message.
#[tokio::test]
async fn truncated_and_corrupted_bodies_are_stream_errors() {
    use pi_test_support::event_stream::encode_frame;
    use pi_test_support::mock_server::{MockResponse, MockServer};
    let adapter = adapter();
    let text = pi_test_support::read_sse(common::WIRE, "a-text-bed-1.sse");
    let mut bytes: Vec<u8> = pi_test_support::raw_frames(&text)
        .iter()
        .take(3)
        .flat_map(|f| encode_frame(f))
        .collect();
    let whole = bytes.len();
    let next = encode_frame(&pi_test_support::raw_frames(&text)[3]);
    bytes.extend_from_slice(&next[..next.len() / 2]);
    let mut corrupted: Vec<u8> = bytes[..whole].to_vec();
    let mut bad = next.clone();
    let at = bad.len() - 6;
    bad[at] ^= 0x20;
    corrupted.extend(bad);
    for (body, expected) in [
        (
            bytes,
            "mock-bed: Stream error: Truncated event message received.",
        ),
        (corrupted, "mock-bed: Stream error: The message checksum ("),
    ] {
        let server = MockServer::start([MockResponse::Raw {
            status: 200,
            content_type: "application/vnd.amazon.eventstream".into(),
            body,
        }])
        .await
        .unwrap();
        let model = served(&server.url());
        (adapter.register)();
        let message = pi_ai::complete_simple(&model, &e2e::context(), e2e::options(&adapter)).await;
        assert_eq!(message.stop_reason, StopReason::Error);
        assert_eq!(message.text(), "Hello! I ");
        let error = message.error_message.unwrap();
        assert!(error.starts_with(expected), "{error}");
    }
}

/// Without credentials the call fails before sending, saying what to set.
#[tokio::test]
async fn missing_credentials_are_named() {
    let adapter = adapter();
    let server = pi_test_support::mock_server::MockServer::start([])
        .await
        .unwrap();
    let model = served(&server.url());
    let provider = BedrockProvider::of(BedrockWire::with_env(AwsEnvironment::from_vars([(
        "HOME",
        "/nonexistent",
    )])));
    let options =
        pi_providers_amazon_bedrock::BedrockOptions::from_simple(&model, &e2e::options(&adapter));
    let message = provider
        .stream_with(&model, &e2e::context(), options)
        .result()
        .await;
    let error = message.error_message.unwrap();
    assert!(
        error.starts_with(
            "mock-bed: Could not load credentials from any providers: set AWS_ACCESS_KEY_ID"
        ),
        "{error}"
    );
    assert!(server.requests().is_empty());
}
