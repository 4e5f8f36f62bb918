//! Recorded SSE streams (`fixtures/sse/azure-openai-responses/*.sse`)
//! decoded into event sequences and snapshotted. The streams pi received in
//! `fixtures/pi-0.73.1-azure` settle into exactly the messages pi stored.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use pi_ai::{AssistantMessageEvent, Message, Model, StopReason};
use pi_providers_azure_openai_responses::AzureOpenAiResponsesDecoder;
use pi_test_support::assert_failed_keeping_text;
use pi_test_support::summary::stream_summary;
use pi_test_support::{assert_stream_contract, final_message, replay_events, sse_file};
use pretty_assertions::assert_eq;

const WIRE: &str = "azure-openai-responses";

async fn decode(name: &str, model: &Model) -> Vec<AssistantMessageEvent> {
    let frames = sse_file(WIRE, &format!("{name}.sse"));
    let events = replay_events(
        model,
        frames,
        AzureOpenAiResponsesDecoder::new(model.clone()),
    )
    .await;
    assert_stream_contract(&events);
    events
}

fn snapshot(name: &str, events: &[AssistantMessageEvent]) {
    insta::assert_json_snapshot!(format!("sse__{name}"), stream_summary(events));
}

/// Every answer pi received, decoded, equals what pi stored (timestamps aside).
#[tokio::test]
async fn recorded_answers_settle_as_pi_stored_them() {
    let mut checked = 0;
    for folder in common::CAPTURES.folders() {
        let (_, model_id) = common::CAPTURES.command_model(&folder);
        let model = common::CAPTURES.model(&model_id);
        let stored = common::CAPTURES
            .session(&folder)
            .assistant_json
            .into_iter()
            .filter(|m| m["provider"] == common::CAPTURES.provider);
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
    assert_eq!(checked, 1 + 2 + 1 + 2 + 1);
}

fn catalog(id: &str) -> Model {
    pi_ai::get_model("azure-openai-responses", id)
        .unwrap()
        .clone()
}

/// pi passes Azure no service-tier pricing: a `priority` response costs
/// the list price.
#[tokio::test]
async fn a_priority_tier_is_not_priced_up() {
    let model = catalog("gpt-5.2");
    let events = decode("priority-tier-unpriced", &model).await;
    let message = final_message(&events);
    assert_eq!(message.stop_reason, StopReason::Stop);
    let cost = &message.usage.cost;
    assert_eq!(cost.input, model.cost.input);
    assert_eq!(cost.output, model.cost.output);
    assert_eq!(cost.total, model.cost.input + model.cost.output);
}

#[tokio::test]
async fn endings_decode_as_openai_responses_does() {
    let model = catalog("gpt-4.1");
    for (name, stop, error) in [
        (
            "no-terminal-event",
            StopReason::Error,
            Some("azure-openai-responses: Stream ended without response.completed"),
        ),
        (
            "failed",
            StopReason::Error,
            Some("server_error: The model failed to answer."),
        ),
        (
            "content-filter-error",
            StopReason::Error,
            Some("Error Code content_filter: The response was filtered."),
        ),
    ] {
        let events = decode(name, &model).await;
        snapshot(name, &events);
        let message = final_message(&events);
        assert_eq!(message.stop_reason, stop, "{name}");
        assert_eq!(message.error_message.as_deref(), error, "{name}");
    }
}

/// pi's recorded text answer cut just before `response.completed`: an error
/// keeping the text (pi 0.73.1 ends it done).
#[tokio::test]
async fn eof_before_the_terminal_event_is_an_error() {
    let events = decode(
        "eof-before-terminal-event",
        &common::CAPTURES.model("mock-az"),
    )
    .await;
    snapshot("eof-before-terminal-event", &events);
    assert_failed_keeping_text(
        &events,
        "mock-az: Stream ended without response.completed",
        "Hello! I am a mock model. 2 + 2 = 4.",
    );
}
