//! Aborting a run while the model streams and while tools run.

use std::sync::Arc;
use std::time::Duration;

use pi_agent_core::{Agent, AgentEvent, AgentToolResult, NoCustom, ToolError, ToolExecutionMode};
use pi_ai::scripted::{ScriptedProvider, text_reply, tool_call_reply};
use pi_ai::{AssistantMessageEvent, StopReason};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::{FnTool, Recorder, agent_with, any_object};

#[tokio::test(start_paused = true)]
async fn abort_mid_stream_ends_the_turn_with_an_aborted_message() {
    let scripted = Arc::new(
        ScriptedProvider::new([text_reply("one two three four five six")])
            .with_chunk_size(4)
            .with_delay(Duration::from_millis(10)),
    );
    let agent = Arc::new(agent_with::<NoCustom>(&scripted));
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    let weak = Arc::downgrade(&agent);
    let deltas = std::sync::Mutex::new(0);
    agent.subscribe(move |event: &AgentEvent| {
        if let AgentEvent::MessageUpdate {
            assistant_message_event: AssistantMessageEvent::TextDelta { .. },
            ..
        } = event
        {
            let mut seen = deltas.lock().unwrap();
            *seen += 1;
            if *seen == 2 {
                weak.upgrade().unwrap().abort();
            }
        }
    });
    agent.prompt("count").await.unwrap();

    let last = agent.messages().pop().unwrap();
    let last = last.as_assistant().unwrap();
    assert_eq!(last.stop_reason, StopReason::Aborted);
    // The text received before the abort is kept.
    assert_eq!(last.text(), "one two ");
    assert_eq!(agent.error().as_deref(), Some("Request was aborted"));
    assert!(!agent.is_streaming());
    assert!(agent.streaming_message().is_none());
    insta::assert_snapshot!(recorder.lines());
}

/// Tools for the mid-tool abort: one finishes at once (and triggers the
/// abort), one honours its token, one ignores it.
fn abort_tools() -> Vec<Arc<dyn pi_agent_core::AgentTool>> {
    let quick = FnTool::arc("quick", any_object(), |_, _, _| {
        Box::pin(async { Ok(AgentToolResult::text("quick done")) })
    });
    let polite = FnTool::arc("polite", any_object(), |_, cancel, _| {
        Box::pin(async move {
            tokio::select! {
                () = cancel.cancelled() => Err(ToolError::new("Command aborted")),
                () = tokio::time::sleep(Duration::from_secs(3600)) => Ok(AgentToolResult::text("late")),
            }
        })
    });
    let stubborn = FnTool::arc("stubborn", any_object(), |_, _, _| {
        Box::pin(async {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok(AgentToolResult::text("never seen"))
        })
    });
    vec![quick, polite, stubborn]
}

async fn abort_when_quick_ends(mode: ToolExecutionMode) -> (Arc<Agent>, Recorder) {
    let scripted = crate::common::provider([
        tool_call_reply(&[
            ("c_polite", "polite", json!({})),
            ("c_quick", "quick", json!({})),
            ("c_stubborn", "stubborn", json!({})),
        ]),
        text_reply("unreachable"),
    ]);
    let agent = Arc::new(agent_with::<NoCustom>(&scripted));
    agent.set_tools(abort_tools());
    agent.update_settings(|s| s.tool_execution = mode);
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    let weak = Arc::downgrade(&agent);
    agent.subscribe(move |event: &AgentEvent| {
        if let AgentEvent::ToolExecutionEnd { tool_call_id, .. } = event
            && tool_call_id == "c_quick"
        {
            weak.upgrade().unwrap().abort();
        }
    });
    agent.prompt("work").await.unwrap();
    // No second model call: the run was aborted.
    assert_eq!(scripted.calls().len(), 1);
    (agent, recorder)
}

#[tokio::test(start_paused = true)]
async fn abort_during_a_parallel_batch_cancels_the_tools_and_records_aborted_results() {
    let (agent, recorder) = abort_when_quick_ends(ToolExecutionMode::Parallel).await;
    assert!(agent.pending_tool_calls().is_empty());
    assert_eq!(agent.error().as_deref(), Some("Request was aborted."));
    insta::assert_snapshot!(recorder.lines());
}

#[tokio::test(start_paused = true)]
async fn abort_during_a_sequential_batch_records_the_remaining_calls_as_aborted() {
    let scripted = crate::common::provider([
        tool_call_reply(&[
            ("c_quick", "quick", json!({})),
            ("c_polite", "polite", json!({})),
            ("c_stubborn", "stubborn", json!({})),
        ]),
        text_reply("unreachable"),
    ]);
    let agent = Arc::new(agent_with::<NoCustom>(&scripted));
    agent.set_tools(abort_tools());
    agent.update_settings(|s| s.tool_execution = ToolExecutionMode::Sequential);
    let recorder = Recorder::default();
    agent.subscribe(recorder.listener());
    let weak = Arc::downgrade(&agent);
    agent.subscribe(move |event: &AgentEvent| {
        if let AgentEvent::ToolExecutionEnd { tool_call_id, .. } = event
            && tool_call_id == "c_quick"
        {
            weak.upgrade().unwrap().abort();
        }
    });
    agent.prompt("work").await.unwrap();
    assert_eq!(scripted.calls().len(), 1);
    insta::assert_snapshot!(recorder.lines());
}

#[tokio::test(start_paused = true)]
async fn abort_from_another_task_while_waiting_for_the_model() {
    let scripted = Arc::new(
        ScriptedProvider::new([text_reply("slow answer")]).with_delay(Duration::from_secs(60)),
    );
    let agent = Arc::new(agent_with::<NoCustom>(&scripted));
    let running = Arc::clone(&agent);
    let run = tokio::spawn(async move { running.prompt("hi").await });
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(agent.is_streaming());
    agent.abort();
    agent.wait_for_idle().await;
    run.await.unwrap().unwrap();
    let last = agent.messages().pop().unwrap();
    assert_eq!(
        last.as_assistant().unwrap().stop_reason,
        StopReason::Aborted
    );
}

/// A tool that takes a moment to stop after the abort (a shell killing
/// its process group) reports its own result, as pi awaits it; one that
/// ignores the abort is recorded as aborted once the grace period is over.
#[tokio::test(start_paused = true)]
async fn an_aborted_tool_reports_its_own_result_when_it_stops_in_time() {
    let slow_to_stop = FnTool::arc("slow_to_stop", any_object(), |_, cancel, _| {
        Box::pin(async move {
            cancel.cancelled().await;
            tokio::time::sleep(Duration::from_millis(300)).await;
            Err(ToolError::new("output so far\n\nCommand aborted"))
        })
    });
    let stubborn = FnTool::arc("stubborn", any_object(), |_, _, _| {
        Box::pin(async {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok(AgentToolResult::text("never seen"))
        })
    });
    let scripted = crate::common::provider([
        tool_call_reply(&[
            ("c_slow", "slow_to_stop", json!({})),
            ("c_stubborn", "stubborn", json!({})),
        ]),
        text_reply("unreachable"),
    ]);
    let agent = Arc::new(agent_with::<NoCustom>(&scripted));
    agent.set_tools(vec![slow_to_stop, stubborn]);
    agent.update_settings(|s| s.tool_execution = ToolExecutionMode::Parallel);
    let weak = Arc::downgrade(&agent);
    agent.subscribe(move |event: &AgentEvent| {
        if let AgentEvent::ToolExecutionStart { tool_call_id, .. } = event
            && tool_call_id == "c_stubborn"
        {
            // Both tools run by then.
            let weak = weak.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(10)).await;
                weak.upgrade().unwrap().abort();
            });
        }
    });
    let started = tokio::time::Instant::now();
    agent.prompt("work").await.unwrap();
    let results: Vec<String> = agent
        .messages()
        .iter()
        .filter_map(|m| match m {
            pi_agent_core::AgentMessage::Standard(pi_ai::Message::ToolResult(r)) => Some(
                r.content
                    .iter()
                    .filter_map(pi_ai::UserBlock::as_text)
                    .collect::<String>(),
            ),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            "output so far\n\nCommand aborted",
            "Tool execution was aborted"
        ]
    );
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(5) && waited < Duration::from_secs(6),
        // 10 ms to the abort, then the 5 s grace.
        "the stubborn tool is given up after the grace period: {waited:?}"
    );
}
