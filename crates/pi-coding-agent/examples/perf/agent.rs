//! The per-turn work of the agent on a long transcript: the app's
//! conversion to LLM messages plus pi-ai's transform, and the whole loop's
//! overhead per turn (a provider that replays a fixed reply and reads
//! nothing, a no-op tool), with the app's converter.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use pi_agent_core::{
    AgentContext, AgentEvent, AgentLoopConfig, AgentMessage, AgentTool, AgentToolResult, ToolError,
    ToolUpdateFn, TransformContext, run_agent_loop,
};
use pi_ai::scripted::scripted_model;
use pi_ai::{
    AssistantContent, AssistantMessage, AssistantMessageEventStream, CancellationToken, ContextRef,
    DoneReason, Message, Model, StopReason, StreamFunction, StreamOptions, ToolCall,
    ToolResultMessage, Usage, UserBlock, UserMessage,
};
use pi_coding_agent::CodingMessage;
use serde_json::{Value, json};

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

/// `n` messages in the shape of a coding session: a request, a tool call,
/// its result (about 1 KB), the answer.
pub fn transcript(n: usize) -> Vec<Message> {
    let words = "lorem ipsum dolor sit amet ";
    (0..n)
        .map(|i| match i % 4 {
            0 => Message::User(UserMessage {
                content: words.repeat(4).into(),
                timestamp: 1,
                ..UserMessage::default()
            }),
            1 => Message::Assistant(assistant(
                vec![
                    AssistantContent::text(words.repeat(6)),
                    AssistantContent::ToolCall(ToolCall {
                        id: format!("call_{i}"),
                        name: "read".to_owned(),
                        arguments: json!({"path": format!("src/file_{i}.rs")}),
                        ..ToolCall::default()
                    }),
                ],
                StopReason::ToolUse,
            )),
            2 => Message::ToolResult(ToolResultMessage {
                tool_call_id: format!("call_{}", i - 1),
                tool_name: "read".to_owned(),
                content: vec![UserBlock::text(words.repeat(40))],
                timestamp: 1,
                ..ToolResultMessage::default()
            }),
            _ => Message::Assistant(assistant(
                vec![AssistantContent::text(words.repeat(12))],
                StopReason::Stop,
            )),
        })
        .collect()
}

pub fn agent_transcript(n: usize) -> Vec<AgentMessage<CodingMessage>> {
    transcript(n).into_iter().map(AgentMessage::from).collect()
}

/// The mean of at least `reps` runs (and of enough runs for [`crate::MIN_CPU_SECONDS`]): the app's conversion plus pi-ai's transform of `n` messages.
pub fn convert_and_transform(n: usize, reps: usize) -> f64 {
    let messages = agent_transcript(n);
    let model = scripted_model();
    let (mut total, mut runs) = (0.0, 0usize);
    while runs < reps || (total < crate::MIN_CPU_SECONDS && runs < 1_000) {
        let start = crate::cpu_seconds();
        let converted = pi_coding_agent::convert_to_llm(&messages);
        let transformed = pi_ai::transform_messages(&converted, &model, None);
        total += crate::cpu_seconds() - start;
        runs += 1;
        assert_eq!(transformed.len(), n);
    }
    total / runs as f64
}

/// Replies with a tool call `turns - 1` times, then with text.
struct Replay {
    calls: AtomicUsize,
    turns: usize,
}

impl Replay {
    /// The next reply; the context is not read.
    fn reply(&self, model: &Model, cancel: CancellationToken) -> AssistantMessageEventStream {
        let n = self.calls.fetch_add(1, Ordering::Relaxed);
        let last = n + 1 >= self.turns;
        let initial =
            AssistantMessage::empty(model.api.clone(), model.provider.clone(), &model.id, 1);
        AssistantMessageEventStream::new(initial, cancel, move |mut sink| async move {
            sink.start();
            let text = sink.text_start();
            sink.text_delta(text, "Reading the next file.");
            sink.text_end(text);
            if last {
                sink.done(DoneReason::Stop);
            } else {
                let index = sink.tool_call_start(format!("call_{n}"), "noop");
                sink.tool_call_delta(index, r#"{"path":"src/lib.rs"}"#);
                sink.tool_call_end(index);
                sink.done(DoneReason::ToolUse);
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

/// The mean of at least `reps` runs (and of enough runs for [`crate::MIN_CPU_SECONDS`]): seconds per turn of a run of `turns` turns on a
/// transcript of `n` messages, with the app's converter.
pub fn per_turn(n: usize, turns: usize, reps: usize) -> f64 {
    per_turn_with(n, turns, reps, None)
}

/// [`per_turn`] with `transform` as the loop's `transform_context` (the
/// app installs one when an extension listens to `context`).
pub fn per_turn_with(
    n: usize,
    turns: usize,
    reps: usize,
    transform: Option<Arc<dyn TransformContext<CodingMessage>>>,
) -> f64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let base = agent_transcript(n);
    let (mut total, mut runs) = (0.0, 0usize);
    while runs < reps || (total < crate::MIN_CPU_SECONDS && runs < 1_000) {
        let mut config = AgentLoopConfig::new(scripted_model());
        config.stream_fn = Arc::new(Replay {
            calls: AtomicUsize::new(0),
            turns,
        });
        config.convert_to_llm = pi_coding_agent::llm_converter(false);
        config.transform_context.clone_from(&transform);
        let context = AgentContext {
            system_prompt: "You are a benchmark.".to_owned(),
            messages: base.clone(),
            tools: vec![Arc::new(Noop {
                schema: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            }) as Arc<dyn AgentTool>],
        };
        let start = crate::cpu_seconds();
        let added = runtime
            .block_on(async {
                let mut sink = |_event: AgentEvent<CodingMessage>| std::future::ready(());
                run_agent_loop(
                    vec![AgentMessage::user_text("go")],
                    context,
                    &config,
                    &mut sink,
                    CancellationToken::new(),
                )
                .await
            })
            .unwrap();
        total += crate::cpu_seconds() - start;
        runs += 1;
        assert_eq!(added.len(), 2 * turns);
    }
    total / (runs * turns) as f64
}
