//! The `Agent`'s run lifecycle: listeners in order and awaited, the state
//! they observe, idleness, unsubscribing, and call options.

use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use async_trait::async_trait;
use pi_agent_core::{Agent, AgentEvent, AgentListener, NoCustom};
use pi_ai::scripted::{ScriptedProvider, text_reply, tool_call_reply};
use pi_ai::{
    AssistantMessageEventStream, CancellationToken, ContextRef, Model, SimpleStreamOptions,
    StreamFunction, StreamOptions, ThinkingLevel,
};
use pretty_assertions::assert_eq;
use serde_json::json;

use crate::common::{agent_with, provider, sleep_tool};

type Log = Arc<Mutex<Vec<String>>>;

/// An async listener that takes its time on `agent_end`.
struct Slow {
    name: &'static str,
    log: Log,
}

#[async_trait]
impl AgentListener<NoCustom> for Slow {
    async fn on_event(&self, event: &AgentEvent, _cancel: &CancellationToken) {
        if matches!(event, AgentEvent::AgentEnd { .. }) {
            tokio::time::sleep(Duration::from_secs(5)).await;
            self.log
                .lock()
                .unwrap()
                .push(format!("{} agent_end", self.name));
        }
    }
}

#[tokio::test(start_paused = true)]
async fn listeners_run_in_order_and_the_run_is_busy_until_they_settle() {
    let agent = Arc::new(agent_with::<NoCustom>(&provider([text_reply("hi")])));
    let log: Log = Arc::default();
    agent.subscribe(Slow {
        name: "first",
        log: Arc::clone(&log),
    });
    agent.subscribe(Slow {
        name: "second",
        log: Arc::clone(&log),
    });
    let running = Arc::clone(&agent);
    let run = tokio::spawn(async move { running.prompt("hello").await });
    tokio::time::sleep(Duration::from_secs(7)).await;
    // agent_end was emitted, but the second listener has not settled yet.
    assert!(agent.is_streaming());
    assert_eq!(*log.lock().unwrap(), ["first agent_end"]);
    agent.wait_for_idle().await;
    assert!(!agent.is_streaming());
    assert_eq!(
        *log.lock().unwrap(),
        ["first agent_end", "second agent_end"]
    );
    run.await.unwrap().unwrap();
}

#[tokio::test]
async fn listeners_see_the_state_already_updated_for_their_event() {
    let scripted = provider([
        tool_call_reply(&[("call_1", "work", json!({}))]),
        text_reply("done"),
    ]);
    let agent = Arc::new(agent_with::<NoCustom>(&scripted));
    agent.set_tools(vec![sleep_tool("work", 1)]);
    let log: Log = Arc::default();
    let weak: Weak<Agent> = Arc::downgrade(&agent);
    let seen = Arc::clone(&log);
    agent.subscribe(move |event: &AgentEvent| {
        let agent = weak.upgrade().unwrap();
        let line = match event {
            AgentEvent::MessageUpdate { message, .. } => {
                let streaming = agent.streaming_message().unwrap();
                format!("message_update shared={}", streaming.ptr_eq(message))
            }
            AgentEvent::MessageEnd { message } => format!(
                "message_end {} streaming={} last_is_this={}",
                message.role(),
                agent.streaming_message().is_some(),
                agent.messages().last() == Some(message)
            ),
            AgentEvent::ToolExecutionStart { .. } | AgentEvent::ToolExecutionEnd { .. } => {
                format!("{} pending={:?}", event.kind(), agent.pending_tool_calls())
            }
            _ => return,
        };
        let mut log = seen.lock().unwrap();
        if log.last() != Some(&line) {
            log.push(line);
        }
    });
    agent.prompt("go").await.unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        [
            "message_end user streaming=false last_is_this=true",
            "message_update shared=true",
            "message_end assistant streaming=false last_is_this=true",
            "tool_execution_start pending={\"call_1\"}",
            "tool_execution_end pending={}",
            "message_end toolResult streaming=false last_is_this=true",
            "message_update shared=true",
            "message_end assistant streaming=false last_is_this=true",
        ]
    );
}

#[tokio::test]
async fn unsubscribed_and_panicking_listeners_do_not_disturb_the_run() {
    let scripted = provider([text_reply("one"), text_reply("two")]);
    let agent = agent_with::<NoCustom>(&scripted);
    let count = Arc::new(Mutex::new(0));
    let counter = Arc::clone(&count);
    let id = agent.subscribe(move |_: &AgentEvent| *counter.lock().unwrap() += 1);
    agent.subscribe(|event: &AgentEvent| {
        if matches!(event, AgentEvent::TurnStart) {
            panic!("listener bug");
        }
    });
    agent.prompt("a").await.unwrap();
    let after_first = *count.lock().unwrap();
    assert!(after_first > 0);
    assert!(agent.unsubscribe(id));
    assert!(!agent.unsubscribe(id));
    agent.prompt("b").await.unwrap();
    assert_eq!(*count.lock().unwrap(), after_first);
    assert_eq!(agent.messages().len(), 4);
}

/// Records the options of each call.
struct Options {
    inner: Arc<ScriptedProvider>,
    seen: Mutex<Vec<String>>,
}

impl StreamFunction for Options {
    fn stream(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        self.inner.stream(model, context, options)
    }

    fn stream_simple(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        self.seen.lock().unwrap().push(format!(
            "reasoning={:?} session={:?} system={:?} tools={:?}",
            options.reasoning,
            options.base.session_id,
            context.system_prompt,
            context
                .tools
                .into_iter()
                .flatten()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
        ));
        self.inner.stream_simple(model, context, options)
    }
}

#[tokio::test]
async fn state_and_settings_reach_the_stream_function() {
    let recorder = Arc::new(Options {
        inner: provider([text_reply("one"), text_reply("two")]),
        seen: Mutex::new(Vec::new()),
    });
    let agent = agent_with::<NoCustom>(&provider([]));
    agent.update_settings(|s| {
        s.stream_fn = Arc::clone(&recorder) as _;
        s.stream_options.session_id = Some("session-1".to_owned());
    });
    agent.prompt("a").await.unwrap();
    agent.set_thinking_level(Some(ThinkingLevel::High));
    agent.set_system_prompt("Be brief.");
    agent.set_tools(vec![sleep_tool("work", 1)]);
    agent.prompt("b").await.unwrap();
    assert_eq!(
        *recorder.seen.lock().unwrap(),
        [
            "reasoning=None session=Some(\"session-1\") system=None tools=[]",
            "reasoning=Some(High) session=Some(\"session-1\") system=Some(\"Be brief.\") tools=[\"work\"]",
        ]
    );
}
