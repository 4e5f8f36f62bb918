//! Error normalization: a failing hook or a broken stream function stops
//! the low-level loop with an error; the `Agent` turns it into an assistant
//! message with stop reason `error` (or `aborted`) followed by
//! `message_start`, `message_end`, `turn_end`, `agent_end`.

use std::sync::Arc;
use std::time::Duration;

use pi_agent_core::{
    AgentContext, AgentEvent, AgentLoopConfig, AgentLoopError, AgentMessage, HookError, NoCustom,
    run_agent_loop, run_agent_loop_continue,
};
use pi_ai::scripted::{error_reply, scripted_model, text_reply};
use pi_ai::{
    AssistantMessageEventStream, CancellationToken, ContextRef, Model, StopReason, StreamFunction,
    StreamOptions,
};
use pretty_assertions::assert_eq;

use crate::common::{Recorder, agent_with, describe_message, provider};

fn failing_converter(_: &[AgentMessage]) -> Result<Vec<pi_ai::Message>, HookError> {
    Err(HookError::new("converter exploded"))
}

#[tokio::test]
async fn the_low_level_loop_returns_a_converter_failure() {
    let scripted = provider([text_reply("never")]);
    let mut config = AgentLoopConfig::<NoCustom>::new(scripted_model());
    config.stream_fn = scripted.clone();
    config.convert_to_llm = Arc::new(failing_converter);
    let recorder = Recorder::default();
    let error = run_agent_loop(
        vec![AgentMessage::user_text("hi")],
        AgentContext::default(),
        &config,
        &mut recorder.sink(),
        CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, AgentLoopError::ConvertToLlm(_)));
    assert_eq!(error.to_string(), "converter exploded");
    assert_eq!(
        recorder.kinds(),
        ["agent_start", "turn_start", "message_start", "message_end"]
    );
    assert!(scripted.calls().is_empty());
}

#[tokio::test]
async fn the_agent_normalizes_a_converter_failure_into_the_event_sequence() {
    let scripted = provider([text_reply("never")]);
    let agent = agent_with::<NoCustom>(&scripted);
    agent.update_settings(|s| s.convert_to_llm = Arc::new(failing_converter));
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    agent.prompt("hi").await.unwrap();

    insta::assert_snapshot!(recorder.lines());
    let tail: Vec<AgentEvent> = recorder.events()[4..].to_vec();
    insta::assert_json_snapshot!("converter_failure_events", tail, {
        "[].message.timestamp" => "[timestamp]",
        "[].messages[].timestamp" => "[timestamp]",
    });
    let transcript: Vec<String> = agent.messages().iter().map(describe_message).collect();
    assert_eq!(
        transcript,
        [
            "user \"hi\"",
            "assistant stop=error error=\"converter exploded\"",
        ]
    );
    assert_eq!(agent.error().as_deref(), Some("converter exploded"));
    assert!(!agent.is_streaming());
}

#[tokio::test(start_paused = true)]
async fn a_transform_failing_after_an_abort_is_normalized_as_aborted() {
    let scripted = provider([text_reply("never")]);
    let agent = Arc::new(agent_with::<NoCustom>(&scripted));
    agent.update_settings(|s| {
        s.transform_context = Some(Arc::new(
            |_: Vec<AgentMessage>, cancel: CancellationToken| async move {
                cancel.cancelled().await;
                Err::<Vec<AgentMessage>, _>(HookError::new("context lookup cancelled"))
            },
        ));
    });
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    let aborter = Arc::clone(&agent);
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(1)).await;
        aborter.abort();
    });
    agent.prompt("hi").await.unwrap();
    insta::assert_snapshot!(recorder.lines());
    let last = agent.messages().pop().unwrap();
    assert_eq!(
        last.as_assistant().unwrap().stop_reason,
        StopReason::Aborted
    );
}

/// A stream function that breaks its contract by panicking.
struct Panicking;

impl StreamFunction for Panicking {
    fn stream(
        &self,
        _: &Model,
        _: ContextRef<'_>,
        _: StreamOptions,
    ) -> AssistantMessageEventStream {
        panic!("wire encoder bug")
    }
}

#[tokio::test]
async fn a_panicking_stream_function_is_normalized() {
    let agent = agent_with::<NoCustom>(&provider([]));
    agent.update_settings(|s| s.stream_fn = Arc::new(Panicking));
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    agent.prompt("hi").await.unwrap();
    assert_eq!(
        agent.error().as_deref(),
        Some("stream function failed: panicked: wire encoder bug")
    );
    assert_eq!(
        recorder.kinds(),
        [
            "agent_start",
            "turn_start",
            "message_start",
            "message_end",
            "message_start",
            "message_end",
            "turn_end",
            "agent_end",
        ]
    );
}

#[tokio::test]
async fn a_provider_error_ends_the_run_after_its_turn() {
    let scripted = provider([error_reply("HTTP 500: overloaded")]);
    let agent = agent_with::<NoCustom>(&scripted);
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    agent.prompt("hi").await.unwrap();
    assert_eq!(agent.error().as_deref(), Some("HTTP 500: overloaded"));
    insta::assert_snapshot!(recorder.lines());
}

#[tokio::test]
async fn continue_needs_a_context_that_does_not_end_with_the_assistant() {
    let config = AgentLoopConfig::<NoCustom>::new(scripted_model());
    let mut sink = Recorder::default().sink();
    let empty = run_agent_loop_continue(
        AgentContext::default(),
        &config,
        &mut sink,
        CancellationToken::new(),
    )
    .await;
    assert!(matches!(empty, Err(AgentLoopError::NothingToContinue)));
    let context = AgentContext {
        messages: vec![AgentMessage::from(text_reply("last"))],
        ..AgentContext::default()
    };
    let tail = run_agent_loop_continue(context, &config, &mut sink, CancellationToken::new()).await;
    assert_eq!(
        tail.unwrap_err().to_string(),
        "Cannot continue from message role: assistant"
    );
}

#[tokio::test]
async fn continue_retries_from_a_user_tail() {
    let scripted = provider([text_reply("answer")]);
    let mut config = AgentLoopConfig::<NoCustom>::new(scripted_model());
    config.stream_fn = scripted.clone();
    let context = AgentContext {
        messages: vec![AgentMessage::user_text("question")],
        ..AgentContext::default()
    };
    let recorder = Recorder::default();
    let added = run_agent_loop_continue(
        context,
        &config,
        &mut recorder.sink(),
        CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(added.len(), 1);
    insta::assert_snapshot!(recorder.lines());
}
