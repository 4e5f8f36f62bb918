//! Per-turn cost of the agent loop on long transcripts.
//!
//! Each `*_1000_turns` iteration is one run of 1,000 turns (999 tool-call
//! replies and a final answer, a no-op tool) on a transcript of 1,000 or
//! 10,000 messages; divide by 1,000 for the per-turn time. The provider
//! replays a fixed reply through the real event machinery and records
//! nothing, so the time is the loop's. `convert_to_llm` measures the one
//! unavoidable per-turn cost that grows with the transcript (projecting it
//! onto provider messages, and freeing that copy after the call), at the
//! transcript's start and average sizes (a run of 1,000 turns adds 2,000
//! messages).
//!
//! `cargo bench -p pi-agent-core --bench turns`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use pi_agent_core::{
    Agent, AgentContext, AgentEvent, AgentLoopConfig, AgentMessage, AgentOptions, AgentTool,
    AgentToolResult, ToolError, ToolUpdateFn, default_convert_to_llm, run_agent_loop,
};
use pi_ai::scripted::scripted_model;
use pi_ai::{
    AssistantContent, AssistantMessage, AssistantMessageEventStream, CancellationToken, ContextRef,
    DoneReason, Message, Model, StopReason, StreamFunction, StreamOptions, ToolCall,
    ToolResultMessage, Usage, UserBlock, UserMessage,
};
use serde_json::{Value, json};

fn main() {
    divan::main();
}

const TURNS: usize = 1_000;

fn assistant(content: Vec<AssistantContent>, stop_reason: StopReason) -> AssistantMessage {
    let model = scripted_model();
    let mut message = AssistantMessage::empty(model.api, model.provider, model.id, 1);
    message.content = content;
    message.stop_reason = stop_reason;
    message.usage = Usage {
        input: 1200,
        output: 80,
        total_tokens: 1280,
        ..Usage::default()
    };
    message
}

fn call(id: usize) -> ToolCall {
    ToolCall {
        id: format!("call_{id}"),
        name: "noop".to_owned(),
        arguments: json!({"path": format!("src/file_{id}.rs"), "offset": 1}),
        ..ToolCall::default()
    }
}

/// A transcript of `n` messages in the shape of a coding session: a user
/// request, an assistant tool call, its result, the assistant's answer.
fn transcript(n: usize) -> Vec<AgentMessage> {
    let words = "lorem ipsum dolor sit amet ";
    (0..n)
        .map(|i| -> AgentMessage {
            match i % 4 {
                0 => Message::User(UserMessage {
                    content: words.repeat(4).into(),
                    timestamp: 1,
                    ..UserMessage::default()
                })
                .into(),
                1 => assistant(
                    vec![
                        AssistantContent::text(words.repeat(6)),
                        AssistantContent::ToolCall(call(i)),
                    ],
                    StopReason::ToolUse,
                )
                .into(),
                2 => Message::ToolResult(ToolResultMessage {
                    tool_call_id: format!("call_{}", i - 1),
                    tool_name: "noop".to_owned(),
                    content: vec![UserBlock::text(words.repeat(20))],
                    timestamp: 1,
                    ..ToolResultMessage::default()
                })
                .into(),
                _ => assistant(
                    vec![AssistantContent::text(words.repeat(12))],
                    StopReason::Stop,
                )
                .into(),
            }
        })
        .collect()
}

/// Answers with a tool call `TURNS - 1` times, then with text, streaming
/// each reply as start / block events / done. Records nothing.
#[derive(Default)]
struct Replay {
    calls: AtomicUsize,
}

impl Replay {
    /// The next reply; the context is not read.
    fn reply(&self, model: &Model, cancel: CancellationToken) -> AssistantMessageEventStream {
        let n = self.calls.fetch_add(1, Ordering::Relaxed);
        let initial =
            AssistantMessage::empty(model.api.clone(), model.provider.clone(), &model.id, 1);
        AssistantMessageEventStream::new(initial, cancel, move |mut sink| async move {
            sink.start();
            let text = sink.text_start();
            sink.text_delta(text, "Reading the ");
            sink.text_delta(text, "next file.");
            sink.text_end(text);
            if n + 1 < TURNS {
                let index = sink.tool_call_start(format!("call_{n}"), "noop");
                sink.tool_call_delta(index, r#"{"path":"src/lib.rs","#);
                sink.tool_call_delta(index, r#""offset":1}"#);
                sink.tool_call_end(index);
                sink.done(DoneReason::ToolUse);
            } else {
                sink.done(DoneReason::Stop);
            }
        })
    }
}

impl StreamFunction for Replay {
    fn stream(
        &self,
        model: &Model,
        _context: ContextRef<'_>,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        self.reply(model, options.cancel)
    }
}

struct Noop {
    schema: Value,
}

#[async_trait]
impl AgentTool for Noop {
    fn name(&self) -> &str {
        "noop"
    }

    fn label(&self) -> &str {
        "noop"
    }

    fn description(&self) -> &str {
        "does nothing"
    }

    fn parameters(&self) -> &Value {
        &self.schema
    }

    async fn execute(
        &self,
        _call_id: &str,
        _args: Value,
        _cancel: CancellationToken,
        _on_update: ToolUpdateFn,
    ) -> Result<AgentToolResult, ToolError> {
        Ok(AgentToolResult::text("ok"))
    }
}

fn noop() -> Arc<dyn AgentTool> {
    Arc::new(Noop {
        schema: json!({
            "type": "object",
            "properties": {"path": {"type": "string"}, "offset": {"type": "integer"}},
            "required": ["path"]
        }),
    })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
}

#[divan::bench(args = [1_000, 10_000], sample_count = 5, sample_size = 1)]
fn loop_1000_turns(bencher: divan::Bencher, n: usize) {
    let runtime = runtime();
    let base = transcript(n);
    bencher
        .with_inputs(|| {
            let mut config = AgentLoopConfig::new(scripted_model());
            config.stream_fn = Arc::new(Replay::default());
            let context = AgentContext {
                system_prompt: "You are a benchmark.".to_owned(),
                messages: base.clone(),
                tools: vec![noop()],
            };
            (config, context)
        })
        .bench_local_values(|(config, context)| {
            runtime.block_on(async {
                let mut events = 0_usize;
                let mut sink = |_event: AgentEvent| {
                    events += 1;
                    std::future::ready(())
                };
                let added = run_agent_loop(
                    vec![AgentMessage::user_text("go")],
                    context,
                    &config,
                    &mut sink,
                    CancellationToken::new(),
                )
                .await
                .unwrap();
                assert_eq!(added.len(), 2 * TURNS);
                (added, events)
            })
        });
}

#[divan::bench(args = [1_000, 10_000], sample_count = 5, sample_size = 1)]
fn agent_1000_turns(bencher: divan::Bencher, n: usize) {
    let runtime = runtime();
    let base = transcript(n);
    bencher
        .with_inputs(|| {
            let mut options = AgentOptions::new(scripted_model());
            options.settings.stream_fn = Arc::new(Replay::default());
            options.tools = vec![noop()];
            options.messages = base.clone();
            let agent = Agent::new(options);
            agent.subscribe(|_: &AgentEvent| {});
            agent
        })
        .bench_local_values(|agent| {
            runtime.block_on(agent.prompt("go")).unwrap();
            assert_eq!(agent.with_state(|s| s.messages.len()), n + 2 * TURNS);
            agent
        });
}

/// The projection a turn must build, and drop again after the call.
#[divan::bench(args = [1_000, 2_000, 10_000, 11_000], sample_count = 20)]
fn convert_to_llm(bencher: divan::Bencher, n: usize) {
    let messages = transcript(n);
    bencher.bench_local(|| drop(default_convert_to_llm(divan::black_box(&messages))));
}
