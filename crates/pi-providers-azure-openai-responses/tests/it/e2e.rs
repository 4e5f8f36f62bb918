//! End to end through a real loopback HTTP server: the shared scenarios of
//! `pi-test-support` (text, tool call, 500 and 429 with the OpenAI client's
//! retries, cut and cancelled streams, missing key, header merge,
//! registration, stream endings, reasoning) with this wire's adapter, and
//! the endpoint errors pi reports before any request.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use futures::StreamExt;
use pi_ai::{Api, Model, SimpleStreamOptions, StopReason, StreamFunction, ThinkingLevel};
use pi_providers_azure_openai_responses::{
    AzureOpenAiResponsesOptions, AzureOpenAiResponsesProvider, AzureOpenAiResponsesWire,
};
use pi_test_support::e2e::{
    self, CallId, Ending, EofCase, ErrorText, PartialCase, ServerErrorCase, TextCase, ThinkingCase,
    ToolCallCase, WireAdapter,
};
use pi_test_support::final_message;
use pi_test_support::mock_server::{MockResponse, MockServer};
use pretty_assertions::assert_eq;
use serde_json::json;

const SERVER_ERROR: &str = r#"{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}"#;

fn served(url: &str) -> Model {
    common::CAPTURES.model_at("mock-az", url)
}

fn served_think(url: &str) -> Model {
    common::CAPTURES.model_at("mock-az-think", url)
}

fn adapter() -> WireAdapter {
    WireAdapter {
        api: Api::AZURE_OPENAI_RESPONSES,
        register: pi_providers_azure_openai_responses::register,
        sse_dir: "azure-openai-responses",
        model: served,
        api_key: common::CAPTURES.api_key(),
        auth_header: "api-key",
        auth_prefix: "",
        path: "/openai/v1/responses?api-version=v1",
        headers: vec![
            ("content-type", Some("application/json")),
            ("accept", Some("application/json")),
            ("authorization", None),
            ("session_id", None),
        ],
        encode: e2e::wire_body::<AzureOpenAiResponsesWire>,
        text: TextCase {
            file: "a-text-az-1.sse",
            kinds: None,
            text: "Hello! I am a mock model. 2 + 2 = 4.",
            response_id: Some("resp_mock0001"),
            usage: (1000, 14, 1214),
            body: vec![
                ("/model", json!("mock-az")),
                ("/prompt_cache_key", json!(e2e::SESSION_ID)),
                ("/max_output_tokens", json!(4096)),
            ],
        },
        partial: PartialCase {
            frames: 6,
            text: "Hello! I ",
        },
        tool_call: ToolCallCase {
            file: "b-bash-az-1.sse",
            kinds: None,
            id: CallId::Exact("call_Rp4nQ8wE2rT6yU0iO3pA5sD7|fc_mock0001_1"),
            name: "bash",
            arguments: json!({"command": "ls"}),
        },
        server_error: ServerErrorCase {
            body: SERVER_ERROR,
            message: "500 The server had an error while processing your request.".into(),
            attempts: 3,
        },
        rate_limit_body: r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#,
        endings: vec![
            Ending {
                file: "no-terminal-event.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("The body just ends"),
                error: ErrorText::Exact("mock-az: Stream ended without response.completed"),
                total_tokens: Some(0),
            },
            Ending {
                file: "failed.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Partial"),
                error: ErrorText::Exact("server_error: The model failed to answer."),
                total_tokens: None,
            },
            Ending {
                file: "content-filter-error.sse",
                frames: None,
                stop: StopReason::Error,
                text: Some("Some text"),
                error: ErrorText::Exact("Error Code content_filter: The response was filtered."),
                total_tokens: None,
            },
        ],
        // A recorded answer cut just before its terminal event: an error
        // (pi 0.73.1 calls it complete; see docs/payload-differences.md).
        eof: EofCase {
            file: "eof-before-terminal-event.sse",
            text: "Hello! I am a mock model. 2 + 2 = 4.",
            error: "mock-az: Stream ended without response.completed",
        },
        thinking: ThinkingCase {
            file: "t-think-az-1.sse",
            model: served_think,
            reasoning: ThinkingLevel::High,
            body: vec![
                ("/reasoning", json!({"effort": "high", "summary": "auto"})),
                ("/include", json!(["reasoning.encrypted_content"])),
                ("/input/0/role", json!("developer")),
            ],
            check: None,
        },
    }
}

pi_test_support::wire_e2e_suite!(adapter());

fn options() -> SimpleStreamOptions {
    e2e::options(&adapter())
}

/// Without any base URL pi fails before sending anything, with its text.
#[tokio::test]
async fn a_model_without_base_url_fails_with_pis_text() {
    let server = MockServer::start([MockResponse::sse(Vec::<String>::new())])
        .await
        .unwrap();
    let mut model = served(&server.url());
    model.base_url = String::new();
    let events: Vec<_> = AzureOpenAiResponsesProvider::new()
        .stream_simple(&model, e2e::context().view(), options())
        .collect()
        .await;
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some(
            "Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, or pass azureBaseUrl, azureResourceName, or model.baseUrl."
        )
    );
    assert!(server.requests().is_empty());
}

/// The options' api version and deployment name shape the URL and body.
#[tokio::test]
async fn options_choose_api_version_and_deployment() {
    let server = MockServer::start([MockResponse::sse(pi_test_support::sse_file_raw_frames(
        "azure-openai-responses",
        "a-text-az-1.sse",
    ))])
    .await
    .unwrap();
    let model = served(&server.url());
    let mut options =
        <AzureOpenAiResponsesOptions as pi_http::WireOptions>::from_simple(&model, options());
    options.api_version = Some("2025-04-01-preview".into());
    options.deployment_name = Some("my-deployment".into());
    let events: Vec<_> = AzureOpenAiResponsesProvider::new()
        .stream_with(&model, &e2e::context(), options)
        .collect()
        .await;
    assert_eq!(final_message(&events).stop_reason, StopReason::Stop);
    let request = &server.requests()[0];
    assert_eq!(
        request.path,
        "/openai/v1/responses?api-version=2025-04-01-preview"
    );
    assert_eq!(request.json()["model"], "my-deployment");
}
