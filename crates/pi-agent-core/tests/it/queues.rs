//! Steering (injected between turns, skipping the rest of a sequential
//! batch) and follow-up (after the agent would stop), in both queue modes.

use std::sync::{Arc, Weak};

use pi_agent_core::{
    Agent, AgentError, AgentEvent, AgentMessage, NoCustom, QueueMode, ToolExecutionMode,
};
use pi_ai::scripted::{text_reply, tool_call_reply};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::{Recorder, agent_with, provider, seen, sleep_tool};

/// Steers once, when the tool call `call_id` starts.
fn steer_when_tool_starts(agent: &Arc<Agent>, call_id: &'static str, text: &'static str) {
    let weak: Weak<Agent> = Arc::downgrade(agent);
    agent.subscribe(move |event: &AgentEvent| {
        if let AgentEvent::ToolExecutionStart { tool_call_id, .. } = event
            && tool_call_id == call_id
            && let Some(agent) = weak.upgrade()
        {
            agent.steer(AgentMessage::user_text(text));
        }
    });
}

#[tokio::test]
async fn steering_skips_the_rest_of_a_sequential_batch_and_is_injected_before_the_next_call() {
    let scripted = provider([
        tool_call_reply(&[("call_a", "a", json!({})), ("call_b", "b", json!({}))]),
        text_reply("changed course"),
    ]);
    let agent = Arc::new(agent_with::<NoCustom>(&scripted));
    agent.set_tools(vec![sleep_tool("a", 1), sleep_tool("b", 1)]);
    agent.update_settings(|s| s.tool_execution = ToolExecutionMode::Sequential);
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    steer_when_tool_starts(&agent, "call_a", "stop, do something else");
    agent.prompt("do a and b").await.unwrap();

    assert_eq!(
        seen(&scripted.calls()[1])[2..],
        [
            "toolResult call_a a error=false \"a done\"",
            "toolResult call_b b error=true \"Skipped due to queued user message.\"",
            "user \"stop, do something else\"",
        ]
    );
    insta::assert_snapshot!(recorder.lines());
}

#[tokio::test]
async fn steering_during_a_parallel_batch_is_injected_after_it() {
    let scripted = provider([
        tool_call_reply(&[("call_a", "a", json!({})), ("call_b", "b", json!({}))]),
        text_reply("changed course"),
    ]);
    let agent = Arc::new(agent_with::<NoCustom>(&scripted));
    agent.set_tools(vec![sleep_tool("a", 1), sleep_tool("b", 1)]);
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    steer_when_tool_starts(&agent, "call_a", "also check c");
    agent.prompt("do a and b").await.unwrap();

    assert_eq!(
        seen(&scripted.calls()[1])[2..],
        [
            "toolResult call_a a error=false \"a done\"",
            "toolResult call_b b error=false \"b done\"",
            "user \"also check c\"",
        ]
    );
    insta::assert_snapshot!(recorder.lines());
}

#[tokio::test]
async fn follow_ups_run_after_the_agent_would_stop_one_at_a_time() {
    let scripted = provider([text_reply("one"), text_reply("two"), text_reply("three")]);
    let agent = Arc::new(agent_with::<NoCustom>(&scripted));
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    // Queued while the first answer streams.
    let weak = Arc::downgrade(&agent);
    agent.subscribe(move |event: &AgentEvent| {
        if let AgentEvent::MessageStart { message } = event
            && message.as_assistant().is_some()
            && let Some(agent) = weak.upgrade()
            && agent.messages().len() == 1
        {
            agent.follow_up(AgentMessage::user_text("follow-up 1"));
            agent.follow_up(AgentMessage::user_text("follow-up 2"));
        }
    });
    agent.prompt("first").await.unwrap();
    assert_eq!(scripted.calls().len(), 3);
    assert!(!agent.has_queued_messages());
    insta::assert_snapshot!(recorder.lines());
}

#[tokio::test]
async fn follow_ups_in_all_mode_arrive_together() {
    let scripted = provider([text_reply("one"), text_reply("two")]);
    let agent = agent_with::<NoCustom>(&scripted);
    agent.set_follow_up_mode(QueueMode::All);
    agent.follow_up(AgentMessage::user_text("follow-up 1"));
    agent.follow_up(AgentMessage::user_text("follow-up 2"));
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    agent.prompt("first").await.unwrap();
    assert_eq!(scripted.calls().len(), 2);
    assert_eq!(
        seen(&scripted.calls()[1]),
        [
            "user \"first\"",
            "assistant stop=stop text=\"one\"",
            "user \"follow-up 1\"",
            "user \"follow-up 2\"",
        ]
    );
    insta::assert_snapshot!(recorder.lines());
}

#[tokio::test]
async fn continue_from_an_assistant_tail_runs_queued_steering_then_follow_ups() {
    let scripted = provider([text_reply("one"), text_reply("two"), text_reply("three")]);
    let agent = agent_with::<NoCustom>(&scripted);
    agent.prompt("first").await.unwrap();
    assert_eq!(
        agent.continue_().await,
        Err(AgentError::ContinueFromAssistant)
    );
    agent.follow_up(AgentMessage::user_text("later"));
    agent.steer(AgentMessage::user_text("now"));
    // Steering first; the follow-up runs in the same run, when it would stop.
    agent.continue_().await.unwrap();
    assert_eq!(
        agent.continue_().await,
        Err(AgentError::ContinueFromAssistant)
    );
    let transcript: Vec<String> = agent
        .messages()
        .iter()
        .map(crate::common::describe_message)
        .collect();
    assert_eq!(
        transcript,
        [
            "user \"first\"",
            "assistant stop=stop text=\"one\"",
            "user \"now\"",
            "assistant stop=stop text=\"two\"",
            "user \"later\"",
            "assistant stop=stop text=\"three\"",
        ]
    );
}

#[tokio::test]
async fn continue_and_reset_are_refused_when_they_make_no_sense() {
    let scripted = provider([text_reply("one")]);
    let agent = Arc::new(agent_with::<NoCustom>(&scripted));
    assert_eq!(
        agent.continue_().await,
        Err(AgentError::NoMessagesToContinue)
    );
    let weak = Arc::downgrade(&agent);
    let refusals = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen_refusals = Arc::clone(&refusals);
    agent.subscribe(move |event: &AgentEvent| {
        use futures::FutureExt;
        if matches!(event, AgentEvent::AgentStart)
            && let Some(agent) = weak.upgrade()
        {
            let mut refusals = seen_refusals.lock().unwrap();
            refusals.push(agent.prompt("again").now_or_never());
            refusals.push(agent.continue_().now_or_never());
            refusals.push(Some(agent.reset()));
            assert!(agent.is_streaming());
        }
    });
    agent.prompt("first").await.unwrap();
    assert_eq!(
        *refusals.lock().unwrap(),
        [
            Some(Err(AgentError::AlreadyProcessingPrompt)),
            Some(Err(AgentError::AlreadyProcessingContinue)),
            Some(Err(AgentError::AlreadyProcessingReset)),
        ]
    );
    assert!(!agent.is_streaming());
    agent.reset().unwrap();
    assert!(agent.messages().is_empty());
}
