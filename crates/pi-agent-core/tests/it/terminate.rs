//! `terminate` on tool results: a batch whose finalized results all set it
//! makes no further model call; queued messages still start another turn.

use std::sync::Arc;

use async_trait::async_trait;
use pi_agent_core::{
    AfterToolCall, AfterToolCallResult, AgentMessage, AgentTool, AgentToolResult, NoCustom,
    ToolCallContext, ToolExecutionMode,
};
use pi_ai::CancellationToken;
use pi_ai::scripted::{text_reply, tool_call_reply};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::{FnTool, Recorder, agent_with, any_object, provider, seen, sleep_tool};

/// A tool that answers `"<name> done"` and asks the loop to stop.
fn terminating_tool(name: &str) -> Arc<dyn AgentTool> {
    let text = format!("{name} done");
    FnTool::arc(name, any_object(), move |_, _, _| {
        let text = text.clone();
        Box::pin(async move { Ok(AgentToolResult::text(text).terminating()) })
    })
}

#[tokio::test]
async fn a_batch_that_terminates_makes_no_second_model_call() {
    for mode in [ToolExecutionMode::Parallel, ToolExecutionMode::Sequential] {
        let scripted = provider([
            tool_call_reply(&[("call_a", "a", json!({})), ("call_b", "b", json!({}))]),
            text_reply("never asked"),
        ]);
        let agent = agent_with::<NoCustom>(&scripted);
        agent.set_tools(vec![terminating_tool("a"), terminating_tool("b")]);
        agent.update_settings(|s| s.tool_execution = mode);
        let recorder = Recorder::default();
        agent.subscribe(recorder.listener());
        agent.prompt("do a and b").await.unwrap();

        assert_eq!(scripted.calls().len(), 1, "{mode:?}");
        let lines = recorder.lines();
        let tail: Vec<&str> = lines.lines().rev().take(2).collect();
        assert_eq!(
            tail,
            [
                "agent_end messages=[user, assistant, toolResult, toolResult]",
                "turn_end assistant stop=tooluse calls=[call_a:a, call_b:b] results=[call_a, call_b]",
            ],
            "{mode:?}"
        );
        // The hint is part of the tool's result as pi writes it.
        let end = recorder
            .events()
            .into_iter()
            .find_map(|event| match event {
                pi_agent_core::AgentEvent::ToolExecutionEnd { result, .. } => Some(result),
                _ => None,
            })
            .unwrap();
        assert_eq!(serde_json::to_value(&end).unwrap()["terminate"], true);
    }
}

#[tokio::test]
async fn a_mixed_batch_goes_on_to_the_next_model_call() {
    for mode in [ToolExecutionMode::Parallel, ToolExecutionMode::Sequential] {
        let scripted = provider([
            tool_call_reply(&[("call_a", "a", json!({})), ("call_b", "b", json!({}))]),
            text_reply("done"),
        ]);
        let agent = agent_with::<NoCustom>(&scripted);
        agent.set_tools(vec![terminating_tool("a"), sleep_tool("b", 1)]);
        agent.update_settings(|s| s.tool_execution = mode);
        agent.prompt("do a and b").await.unwrap();
        assert_eq!(scripted.calls().len(), 2, "{mode:?}");
    }
}

/// Sets `terminate` on every result to `self.0`.
struct SetTerminate(Option<bool>);

#[async_trait]
impl AfterToolCall<NoCustom> for SetTerminate {
    async fn after_tool_call(
        &self,
        _context: ToolCallContext<'_, NoCustom>,
        _result: &AgentToolResult,
        _is_error: bool,
        _cancel: &CancellationToken,
    ) -> Option<AfterToolCallResult> {
        Some(AfterToolCallResult {
            terminate: self.0,
            ..AfterToolCallResult::default()
        })
    }
}

#[tokio::test]
async fn after_tool_call_overrides_the_hint_and_none_keeps_it() {
    // (tool terminates, override, model calls)
    let cases = [
        (false, Some(true), 1),
        (true, Some(false), 2),
        (true, None, 1),
        (false, None, 2),
    ];
    for (terminates, set, calls) in cases {
        let scripted = provider([
            tool_call_reply(&[("call_a", "a", json!({}))]),
            text_reply("done"),
        ]);
        let agent = agent_with::<NoCustom>(&scripted);
        let tool = if terminates {
            terminating_tool("a")
        } else {
            sleep_tool("a", 1)
        };
        agent.set_tools(vec![tool]);
        agent.update_settings(|s| s.after_tool_call = Some(Arc::new(SetTerminate(set))));
        agent.prompt("do a").await.unwrap();
        assert_eq!(scripted.calls().len(), calls, "{terminates} {set:?}");
    }
}

#[tokio::test]
async fn steering_queued_during_a_terminating_batch_still_starts_a_turn() {
    let scripted = provider([
        tool_call_reply(&[("call_a", "a", json!({}))]),
        text_reply("steered"),
    ]);
    let agent = Arc::new(agent_with::<NoCustom>(&scripted));
    let weak = Arc::downgrade(&agent);
    let tool = FnTool::arc("a", any_object(), move |_, _, _| {
        if let Some(agent) = weak.upgrade() {
            agent.steer(AgentMessage::user_text("one more thing"));
        }
        Box::pin(async move { Ok(AgentToolResult::text("a done").terminating()) })
    });
    agent.set_tools(vec![tool]);
    agent.prompt("do a").await.unwrap();

    let calls = scripted.calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        seen(&calls[1])[2..],
        [
            "toolResult call_a a error=false \"a done\"",
            "user \"one more thing\"",
        ]
    );
}

#[tokio::test]
async fn a_follow_up_after_a_terminating_batch_starts_a_turn() {
    let scripted = provider([
        tool_call_reply(&[("call_a", "a", json!({}))]),
        text_reply("followed up"),
    ]);
    let agent = agent_with::<NoCustom>(&scripted);
    agent.set_tools(vec![terminating_tool("a")]);
    agent.follow_up(AgentMessage::user_text("and then"));
    agent.prompt("do a").await.unwrap();
    assert_eq!(scripted.calls().len(), 2);
}
