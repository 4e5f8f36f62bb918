//! A provider that replays scripted assistant messages as realistic event
//! sequences, so the agent and app layers can be tested without a network.
//! Enabled by the `testing` feature.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;

use crate::{
    Api, AssistantContent, AssistantMessage, AssistantMessageEventStream, Context, ContextRef,
    DoneReason, ErrorReason, EventSink, Model, StopReason, StreamFunction, StreamOptions, ToolCall,
    Usage, now_ms,
};

/// The wire api name the scripted provider is usually registered under.
pub const SCRIPTED_API: &str = "scripted";

/// Replays one scripted [`AssistantMessage`] per call.
///
/// Each reply is streamed as `start`, then per block its start / deltas
/// (split into `chunk_size`-character pieces) / end events, then `done` with
/// the reply's stop reason, or `error` when the reply's stop reason is
/// `error` or `aborted`. The reply's `api`, `provider` and `model` are
/// replaced by the called model's.
pub struct ScriptedProvider {
    replies: Mutex<VecDeque<AssistantMessage>>,
    calls: Mutex<Vec<Context>>,
    chunk_size: usize,
    delay: Option<Duration>,
}

impl ScriptedProvider {
    /// A provider that answers the calls with `replies`, in order.
    pub fn new(replies: impl IntoIterator<Item = AssistantMessage>) -> Self {
        Self {
            replies: Mutex::new(replies.into_iter().collect()),
            calls: Mutex::new(Vec::new()),
            chunk_size: 4,
            delay: None,
        }
    }

    /// Splits deltas into pieces of `chars` characters (at least 1).
    pub fn with_chunk_size(mut self, chars: usize) -> Self {
        self.chunk_size = chars.max(1);
        self
    }

    /// Sleeps `delay` before every delta (to test cancellation mid-stream).
    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.delay = Some(delay);
        self
    }

    /// Appends replies to the script.
    pub fn push_replies(&self, replies: impl IntoIterator<Item = AssistantMessage>) {
        self.replies
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(replies);
    }

    /// The contexts received so far, one per call.
    pub fn calls(&self) -> Vec<Context> {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replies not consumed yet.
    pub fn remaining(&self) -> usize {
        self.replies
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// An assistant reply with one text block and stop reason `stop`.
pub fn text_reply(text: &str) -> AssistantMessage {
    let mut message = scripted_message(StopReason::Stop);
    message.content.push(AssistantContent::text(text));
    message
}

/// An assistant reply calling tools `(id, name, arguments)` in order, stop reason `toolUse`.
pub fn tool_call_reply(calls: &[(&str, &str, Value)]) -> AssistantMessage {
    let mut message = scripted_message(StopReason::ToolUse);
    for (id, name, arguments) in calls {
        message.content.push(AssistantContent::ToolCall(ToolCall {
            id: (*id).to_owned(),
            name: (*name).to_owned(),
            arguments: arguments.clone(),
            ..ToolCall::default()
        }));
    }
    message
}

/// An assistant reply that fails with `error_message`.
pub fn error_reply(error_message: &str) -> AssistantMessage {
    let mut message = scripted_message(StopReason::Error);
    message.error_message = Some(error_message.to_owned());
    message
}

fn scripted_message(stop_reason: StopReason) -> AssistantMessage {
    let mut message =
        AssistantMessage::empty(Api::new(SCRIPTED_API), "scripted".into(), "scripted", 0);
    message.stop_reason = stop_reason;
    message.usage = Usage {
        input: 10,
        output: 5,
        total_tokens: 15,
        ..Usage::default()
    };
    message
}

fn chunks(text: &str, size: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest.char_indices().nth(size).map_or(rest.len(), |(i, _)| i);
        let (head, tail) = rest.split_at(end);
        rest = tail;
        Some(head)
    })
}

async fn replay(
    mut sink: EventSink,
    reply: AssistantMessage,
    chunk_size: usize,
    delay: Option<Duration>,
) {
    let pause = || async move {
        if let Some(d) = delay {
            tokio::time::sleep(d).await;
        }
    };
    sink.update(|m| {
        m.usage = reply.usage;
        m.response_id.clone_from(&reply.response_id);
    });
    sink.start();
    for block in &reply.content {
        match block {
            AssistantContent::Text(text) => {
                let index = sink.text_start();
                for piece in chunks(&text.text, chunk_size) {
                    pause().await;
                    sink.text_delta(index, piece);
                }
                if let Some(sig) = &text.text_signature {
                    sink.set_text_signature(index, sig.clone());
                }
                sink.text_end(index);
            }
            AssistantContent::Thinking(thinking) => {
                let start = crate::ThinkingContent {
                    redacted: thinking.redacted,
                    ..Default::default()
                };
                let index = sink.thinking_block_start(start);
                for piece in chunks(&thinking.thinking, chunk_size) {
                    pause().await;
                    sink.thinking_delta(index, piece);
                }
                if let Some(sig) = &thinking.thinking_signature {
                    sink.append_thinking_signature(index, sig);
                }
                sink.thinking_end(index);
            }
            AssistantContent::ToolCall(call) => {
                let index = sink.tool_call_start(call.id.clone(), call.name.clone());
                let json = call.arguments.to_string();
                for piece in chunks(&json, chunk_size) {
                    pause().await;
                    sink.tool_call_delta(index, piece);
                }
                if call.thought_signature.is_some() {
                    sink.update_tool_call(index, |c| {
                        c.thought_signature.clone_from(&call.thought_signature)
                    });
                }
                sink.tool_call_end(index);
            }
        }
    }
    let reason = match reply.stop_reason {
        StopReason::Stop | StopReason::Pending | StopReason::Deferred => Ok(DoneReason::Stop),
        StopReason::Length => Ok(DoneReason::Length),
        StopReason::ToolUse => Ok(DoneReason::ToolUse),
        StopReason::Error => Err(ErrorReason::Error),
        StopReason::Aborted => Err(ErrorReason::Aborted),
    };
    match reason {
        Ok(reason) => sink.done(reason),
        Err(reason) => {
            let text = reply
                .error_message
                .unwrap_or_else(|| "scripted error".to_owned());
            sink.error(reason, text);
        }
    }
}

impl StreamFunction for ScriptedProvider {
    fn stream(
        &self,
        model: &Model,
        context: ContextRef<'_>,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(context.to_context());
        let initial = AssistantMessage::empty(
            model.api.clone(),
            model.provider.clone(),
            model.id.clone(),
            now_ms(),
        );
        let next = self
            .replies
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front();
        let Some(reply) = next else {
            return AssistantMessageEventStream::failed(
                initial,
                "scripted provider has no more replies",
            );
        };
        let (chunk_size, delay) = (self.chunk_size, self.delay);
        AssistantMessageEventStream::new(initial, options.cancel, move |sink| {
            replay(sink, reply, chunk_size, delay)
        })
    }
}

/// A model served by the scripted provider (api [`SCRIPTED_API`]).
pub fn scripted_model() -> Model {
    Model {
        id: "scripted-model".to_owned(),
        name: "Scripted".to_owned(),
        api: Api::new(SCRIPTED_API),
        provider: "scripted".into(),
        base_url: String::new(),
        reasoning: true,
        input: vec![crate::InputModality::Text, crate::InputModality::Image],
        cost: crate::ModelCost::default(),
        context_window: 200_000,
        max_tokens: 8_192,
        headers: None,
        compat: None,
        extra: crate::ExtraFields::new(),
    }
}
