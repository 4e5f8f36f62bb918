//! Recorded SSE streams (`fixtures/sse/openai-codex-responses/*.sse`)
//! decoded into event sequences and snapshotted. The streams pi received in
//! `fixtures/pi-0.73.1-codex` settle into exactly the messages pi stored;
//! the hand-made ones pin the backend's own events and errors.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use pi_ai::{AssistantMessageEvent, Message, Model, StopReason};
use pi_providers_openai_codex_responses::OpenAiCodexDecoder;
use pi_test_support::assert_failed_keeping_text;
use pi_test_support::summary::stream_summary;
use pi_test_support::{assert_stream_contract, final_message, replay_events, sse_file};
use pretty_assertions::assert_eq;

const WIRE: &str = "openai-codex-responses";

async fn decode_tier(name: &str, model: &Model, tier: Option<&str>) -> Vec<AssistantMessageEvent> {
    let frames = sse_file(WIRE, &format!("{name}.sse"));
    let decoder = OpenAiCodexDecoder::new(model.clone(), tier.map(str::to_owned));
    let events = replay_events(model, frames, decoder).await;
    assert_stream_contract(&events);
    events
}

async fn decode(name: &str, model: &Model) -> Vec<AssistantMessageEvent> {
    decode_tier(name, model, None).await
}

fn snapshot(name: &str, events: &[AssistantMessageEvent]) {
    insta::assert_json_snapshot!(format!("sse__{name}"), stream_summary(events));
}

fn catalog(id: &str) -> Model {
    pi_ai::get_model("openai-codex", id).unwrap().clone()
}

/// Every answer pi received, decoded, equals what pi stored (timestamps aside).
#[tokio::test]
async fn recorded_answers_settle_as_pi_stored_them() {
    let mut checked = 0;
    for folder in common::CAPTURES.folders() {
        let (provider, model_id) = common::CAPTURES.command_model(&folder);
        let model = if provider == common::CAPTURES.provider {
            common::CAPTURES.model(&model_id)
        } else {
            pi_ai::get_model(&provider, &model_id).unwrap().clone()
        };
        let stored = common::CAPTURES
            .session(&folder)
            .assistant_json
            .into_iter()
            .filter(|m| m["provider"] == provider.as_str() && m["stopReason"] != "error");
        for (at, mut pis) in stored.enumerate() {
            let name = format!("{folder}-{}", at + 1);
            let events = decode(&name, &model).await;
            snapshot(&name, &events);
            let mut ours =
                serde_json::to_value(Message::Assistant(final_message(&events))).unwrap();
            for message in [&mut ours, &mut pis] {
                message.as_object_mut().unwrap().remove("timestamp");
            }
            assert_eq!(ours, pis, "{name}");
            checked += 1;
        }
    }
    assert_eq!(checked, 1 + 2 + 1 + 1 + 2 + 1);
}

/// The backend's own endings and errors, as pi's `mapCodexEvents` reads them.
#[tokio::test]
async fn codex_endings_and_errors() {
    let model = catalog("gpt-5.4-mini");
    for (name, stop, text, error) in [
        (
            "response-done",
            StopReason::Stop,
            "Done via response.done.",
            None,
        ),
        ("unknown-status", StopReason::Stop, "An odd status.", None),
        ("incomplete", StopReason::Length, "Cut at the limit", None),
        (
            "no-terminal-event",
            StopReason::Error,
            "The body just ends",
            Some("openai-codex: Stream ended without response.completed"),
        ),
        (
            "untyped-frames-skipped",
            StopReason::Stop,
            "Frames without a type are skipped.",
            None,
        ),
        (
            "codex-error-event",
            StopReason::Error,
            "Some text",
            Some("Codex error: Your input exceeds the context window of this model."),
        ),
        (
            "codex-error-code-only",
            StopReason::Error,
            "Some text",
            Some("Codex error: server_is_overloaded"),
        ),
        (
            "codex-failed",
            StopReason::Error,
            "Partial",
            Some("The model failed to answer."),
        ),
        (
            "codex-failed-no-error",
            StopReason::Error,
            "Partial",
            Some("Codex response failed"),
        ),
    ] {
        let events = decode(name, &model).await;
        snapshot(name, &events);
        let message = final_message(&events);
        assert_eq!(message.stop_reason, stop, "{name}");
        assert_eq!(message.text(), text, "{name}");
        assert_eq!(message.error_message.as_deref(), error, "{name}");
    }
    let events = decode("invalid-json", &model).await;
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(message.text(), "Before the bad frame");
    let error = message.error_message.unwrap();
    assert!(error.starts_with("Invalid Codex SSE JSON: "), "{error}");
}

/// A response that says `default` is priced at the requested `flex` tier
/// (pi's `resolveCodexServiceTier`); without a request it is list price.
#[tokio::test]
async fn a_default_response_tier_prices_at_the_requested_tier() {
    let model = catalog("gpt-5.4-mini");
    let list = model.cost.input + model.cost.output;
    let flex =
        final_message(&decode_tier("flex-tier-default-response", &model, Some("flex")).await);
    assert!(
        (flex.usage.cost.total - list * 0.5).abs() < 1e-9,
        "{}",
        flex.usage.cost.total
    );
    let plain = final_message(&decode("flex-tier-default-response", &model).await);
    assert!((plain.usage.cost.total - list).abs() < 1e-9);
}

/// pi's recorded text answer cut just before `response.completed`: an error
/// keeping the text (pi 0.73.1 ends it done).
#[tokio::test]
async fn eof_before_the_terminal_event_is_an_error() {
    let events = decode(
        "eof-before-terminal-event",
        &common::CAPTURES.model("mock-cdx"),
    )
    .await;
    snapshot("eof-before-terminal-event", &events);
    assert_failed_keeping_text(
        &events,
        "mock-cdx: Stream ended without response.completed",
        "Hello! I am a mock model. 2 + 2 = 4.",
    );
}

/// `data: [DONE]` without a completion: the server closed the answer
/// itself, a stop (as pi), as on openai-responses.
#[tokio::test]
async fn done_without_a_terminal_event_is_a_stop() {
    let mut frames = sse_file(WIRE, "no-terminal-event.sse");
    frames.push(pi_http::SseFrame {
        event: String::new(),
        data: "[DONE]".to_owned(),
    });
    let model = catalog("gpt-5.4-mini");
    let decoder = OpenAiCodexDecoder::new(model.clone(), None);
    let events = replay_events(&model, frames, decoder).await;
    assert_stream_contract(&events);
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.error_message, None);
    assert_eq!(message.text(), "The body just ends");
}
