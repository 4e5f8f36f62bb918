//! `should_stop_after_turn`: asked right after every `turn_end`; `true`
//! ends the run with `agent_end` and polls no queue.

use std::sync::{Arc, Mutex};

use pi_agent_core::{
    AgentContext, AgentLoopConfig, AgentMessage, NoCustom, ShouldStopAfterTurnContext,
    ToolExecutionMode, run_agent_loop,
};
use pi_ai::CancellationToken;
use pi_ai::scripted::{scripted_model, text_reply, tool_call_reply};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::{Recorder, agent_with, provider, sleep_tool};

#[tokio::test]
async fn a_stop_after_the_first_turn_ends_the_run_with_what_it_added() {
    let scripted = provider([
        tool_call_reply(&[("call_a", "a", json!({}))]),
        text_reply("never asked"),
    ]);
    let mut config = AgentLoopConfig::<NoCustom>::new(scripted_model());
    config.stream_fn = Arc::clone(&scripted) as _;
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = Arc::clone(&seen);
    config.should_stop_after_turn = Some(Arc::new(
        move |turn: &ShouldStopAfterTurnContext<'_, NoCustom>| {
            log.lock().unwrap().push(format!(
                "calls={} results={} messages={} new={}",
                turn.message.tool_calls().count(),
                turn.tool_results.len(),
                turn.messages.len(),
                turn.new_messages.len()
            ));
            true
        },
    ));
    config.get_follow_up_messages = Some(Arc::new(|| panic!("no follow-up poll after a stop")));
    let context = AgentContext {
        messages: vec![AgentMessage::user_text("earlier")],
        tools: vec![sleep_tool("a", 1)],
        ..AgentContext::default()
    };
    let recorder = Recorder::default();
    let new_messages = run_agent_loop(
        vec![AgentMessage::user_text("do a")],
        context,
        &config,
        &mut recorder.sink(),
        CancellationToken::new(),
    )
    .await
    .unwrap();

    assert_eq!(scripted.calls().len(), 1);
    // The transcript holds the earlier message too; the run's messages do not.
    assert_eq!(
        *seen.lock().unwrap(),
        ["calls=1 results=1 messages=4 new=3"]
    );
    let roles: Vec<&str> = new_messages.iter().map(AgentMessage::role).collect();
    assert_eq!(roles, ["user", "assistant", "toolResult"]);
    let kinds = recorder.kinds();
    assert_eq!(kinds[kinds.len() - 2..], ["turn_end", "agent_end"]);
}

#[tokio::test]
async fn false_lets_the_run_go_on_and_is_asked_every_turn() {
    let scripted = provider([
        tool_call_reply(&[("call_a", "a", json!({}))]),
        text_reply("done"),
    ]);
    let agent = agent_with::<NoCustom>(&scripted);
    agent.set_tools(vec![sleep_tool("a", 1)]);
    // The hook sees the whole transcript, the agent's earlier messages too.
    agent.append_message(AgentMessage::user_text("earlier"));
    let asked: Arc<Mutex<Vec<(usize, usize)>>> = Arc::default();
    let log = Arc::clone(&asked);
    agent.update_settings(|s| {
        s.should_stop_after_turn = Some(Arc::new(
            move |turn: &ShouldStopAfterTurnContext<'_, NoCustom>| {
                let mut log = log.lock().unwrap();
                log.push((turn.messages.len(), turn.new_messages.len()));
                false
            },
        ));
    });
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    agent.prompt("do a").await.unwrap();

    assert_eq!(scripted.calls().len(), 2);
    assert_eq!(*asked.lock().unwrap(), [(4, 3), (5, 4)]);
    insta::assert_snapshot!(recorder.lines());
}

#[tokio::test]
async fn a_stop_leaves_steering_and_follow_ups_queued() {
    for mode in [ToolExecutionMode::Parallel, ToolExecutionMode::Sequential] {
        let scripted = provider([
            tool_call_reply(&[("call_a", "a", json!({})), ("call_b", "b", json!({}))]),
            text_reply("never asked"),
        ]);
        let agent = Arc::new(agent_with::<NoCustom>(&scripted));
        let weak = Arc::downgrade(&agent);
        agent.subscribe(move |event: &pi_agent_core::AgentEvent| {
            if let pi_agent_core::AgentEvent::ToolExecutionStart { tool_call_id, .. } = event
                && tool_call_id == "call_a"
                && let Some(agent) = weak.upgrade()
            {
                agent.steer(AgentMessage::user_text("steer"));
            }
        });
        agent.set_tools(vec![sleep_tool("a", 1), sleep_tool("b", 1)]);
        agent.update_settings(|s| {
            s.tool_execution = mode;
            s.should_stop_after_turn =
                Some(Arc::new(|_: &ShouldStopAfterTurnContext<'_, NoCustom>| {
                    true
                }));
        });
        agent.follow_up(AgentMessage::user_text("later"));
        agent.prompt("do a and b").await.unwrap();

        assert_eq!(scripted.calls().len(), 1, "{mode:?}");
        assert!(agent.has_queued_messages(), "{mode:?}");
        // As in pi 0.73.1, the steering message skipped no call.
        let results: Vec<bool> = agent
            .messages()
            .iter()
            .filter_map(|m| match m {
                AgentMessage::Standard(pi_ai::Message::ToolResult(r)) => Some(r.is_error),
                _ => None,
            })
            .collect();
        assert_eq!(results, [false, false], "{mode:?}");
        // The queued messages start the next run.
        agent.update_settings(|s| s.should_stop_after_turn = None);
        scripted.push_replies([text_reply("followed up")]);
        agent.prompt("again").await.unwrap();
        let calls = scripted.calls();
        assert_eq!(calls.len(), 3, "{mode:?}");
        assert_eq!(
            crate::common::seen(&calls[1])[4..],
            ["user \"again\"", "user \"steer\""],
            "{mode:?}"
        );
        assert!(!agent.has_queued_messages(), "{mode:?}");
    }
}
