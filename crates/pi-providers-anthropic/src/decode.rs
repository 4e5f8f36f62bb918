//! The pure stream decoder: Anthropic SSE frames -> [`EventSink`] calls.
//!
//! Frames are dispatched on their `event:` name as pi does: the six message
//! events are decoded, `error` ends the stream with the event's data as the
//! error message, and everything else (`ping`, proxy extras) is ignored.
//! Wire block indices are mapped to content indices, so blocks pi ignores
//! (server tools) leave no gap. The stream is complete only at
//! `message_stop`; a body that ends before it is an error.

use pi_ai::{DoneReason, EventSink, Model, ThinkingContent, Usage, calculate_cost};
use pi_http::{DecodeError, SseDecoder, SseFrameRef, StreamEnd};

use crate::wire::{BlockDelta, BlockStart, StreamEvent, WireUsage};

/// The placeholder text of a redacted thinking block.
pub const REDACTED_THINKING_TEXT: &str = "[Reasoning redacted]";
/// pi's error text when the model stopped for a reason that is a failure.
pub const UNKNOWN_ERROR: &str = "An unknown error occurred";
/// The error of a body that ends without `message_stop` (worded to match
/// pi's retryable `ended without` pattern, so auto-retry retries it).
pub const MISSING_MESSAGE_STOP: &str = "Anthropic stream ended without message_stop";

/// What kind of content block a wire index opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
    ToolCall,
}

/// An open content block: its wire index and where it sits in `content`.
#[derive(Debug, Clone, Copy)]
struct OpenBlock {
    wire_index: u64,
    content_index: usize,
    kind: Kind,
}

/// How the message stopped, from `message_delta`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Done(DoneReason),
    Failed,
}

/// Decodes one Anthropic Messages stream.
#[derive(Debug, Clone)]
pub struct AnthropicDecoder {
    model: Model,
    open: Vec<OpenBlock>,
    stop: Stop,
    /// For OAuth calls: the caller's tool names, to undo Claude Code casing.
    tool_names: Option<Vec<String>>,
}

impl AnthropicDecoder {
    /// A decoder pricing usage with `model`.
    pub fn new(model: Model) -> Self {
        Self {
            model,
            open: Vec::new(),
            stop: Stop::Done(DoneReason::Stop),
            tool_names: None,
        }
    }

    /// For OAuth (Claude Code) calls: tool names from the stream are mapped
    /// back, case-insensitively, to these names.
    pub fn with_tool_names(mut self, names: Vec<String>) -> Self {
        self.tool_names = Some(names);
        self
    }

    fn block(&self, wire_index: u64, kind: Kind) -> Option<usize> {
        self.open
            .iter()
            .find(|b| b.wire_index == wire_index && b.kind == kind)
            .map(|b| b.content_index)
    }

    fn tool_name(&self, name: &str) -> String {
        self.tool_names
            .as_ref()
            .and_then(|names| names.iter().find(|n| n.eq_ignore_ascii_case(name)))
            .map_or_else(|| name.to_owned(), Clone::clone)
    }

    fn apply(&mut self, event: StreamEvent<'_>, sink: &mut EventSink) -> Result<bool, DecodeError> {
        match event {
            StreamEvent::MessageStart { message } => {
                let id = message.id.into_owned();
                let wire = message.usage.unwrap_or_default();
                sink.update(|m| {
                    m.response_id = Some(id);
                    m.usage.input = wire.input_tokens.unwrap_or(0);
                    m.usage.output = wire.output_tokens.unwrap_or(0);
                    m.usage.cache_read = wire.cache_read_input_tokens.unwrap_or(0);
                    m.usage.cache_write = wire.cache_creation_input_tokens.unwrap_or(0);
                    settle_usage(&self.model, &mut m.usage);
                });
            }
            StreamEvent::ContentBlockStart {
                index,
                content_block,
            } => self.start_block(index, content_block, sink),
            StreamEvent::ContentBlockDelta { index, delta } => match delta {
                BlockDelta::TextDelta { text } => {
                    if let Some(at) = self.block(index, Kind::Text) {
                        sink.text_delta(at, &text);
                    }
                }
                BlockDelta::ThinkingDelta { thinking } => {
                    if let Some(at) = self.block(index, Kind::Thinking) {
                        sink.thinking_delta(at, &thinking);
                    }
                }
                BlockDelta::InputJsonDelta { partial_json } => {
                    if let Some(at) = self.block(index, Kind::ToolCall) {
                        sink.tool_call_delta(at, &partial_json);
                    }
                }
                BlockDelta::SignatureDelta { signature } => {
                    if let Some(at) = self.block(index, Kind::Thinking) {
                        sink.append_thinking_signature(at, &signature);
                    }
                }
                BlockDelta::Other => {}
            },
            StreamEvent::ContentBlockStop { index } => {
                if let Some(pos) = self.open.iter().position(|b| b.wire_index == index) {
                    let block = self.open.remove(pos);
                    match block.kind {
                        Kind::Text => sink.text_end(block.content_index),
                        Kind::Thinking => sink.thinking_end(block.content_index),
                        Kind::ToolCall => sink.tool_call_end(block.content_index),
                    }
                }
            }
            StreamEvent::MessageDelta { delta, usage } => {
                if let Some(reason) = delta.stop_reason {
                    self.stop = map_stop_reason(&reason)?;
                }
                let wire = usage.unwrap_or_default();
                sink.update(|m| {
                    merge_usage(&mut m.usage, wire);
                    settle_usage(&self.model, &mut m.usage);
                });
            }
            StreamEvent::MessageStop => return Ok(true),
        }
        Ok(false)
    }

    fn start_block(&mut self, wire_index: u64, block: BlockStart<'_>, sink: &mut EventSink) {
        let (content_index, kind) = match block {
            BlockStart::Text => (sink.text_start(), Kind::Text),
            BlockStart::Thinking => {
                let block = ThinkingContent {
                    thinking_signature: Some(String::new()),
                    ..ThinkingContent::default()
                };
                (sink.thinking_block_start(block), Kind::Thinking)
            }
            BlockStart::RedactedThinking { data } => {
                let block = ThinkingContent {
                    thinking: REDACTED_THINKING_TEXT.to_owned(),
                    thinking_signature: Some(data.into_owned()),
                    redacted: Some(true),
                    ..ThinkingContent::default()
                };
                (sink.thinking_block_start(block), Kind::Thinking)
            }
            BlockStart::ToolUse { id, name, input } => {
                let at = sink.tool_call_start(id.into_owned(), self.tool_name(&name));
                // Arguments sent whole in the start event (no deltas follow).
                if let Some(input) = input.filter(|v| v.as_object().is_some_and(|o| !o.is_empty()))
                {
                    sink.update_tool_call(at, |call| call.arguments = input);
                }
                (at, Kind::ToolCall)
            }
            BlockStart::Other => return,
        };
        self.open.push(OpenBlock {
            wire_index,
            content_index,
            kind,
        });
    }
}

/// pi's stop-reason map; an unknown reason fails the stream.
fn map_stop_reason(reason: &str) -> Result<Stop, DecodeError> {
    Ok(match reason {
        "end_turn" | "pause_turn" | "stop_sequence" => Stop::Done(DoneReason::Stop),
        "max_tokens" => Stop::Done(DoneReason::Length),
        "tool_use" => Stop::Done(DoneReason::ToolUse),
        "refusal" | "sensitive" => Stop::Failed,
        other => return Err(format!("Unhandled stop reason: {other}").into()),
    })
}

/// Overwrites the counts `message_delta` carries; absent or `null` ones keep
/// the values from `message_start` (proxies omit input tokens there).
fn merge_usage(usage: &mut Usage, wire: WireUsage) {
    if let Some(v) = wire.input_tokens {
        usage.input = v;
    }
    if let Some(v) = wire.output_tokens {
        usage.output = v;
    }
    if let Some(v) = wire.cache_read_input_tokens {
        usage.cache_read = v;
    }
    if let Some(v) = wire.cache_creation_input_tokens {
        usage.cache_write = v;
    }
}

/// Recomputes the total (Anthropic sends none) and the cost.
fn settle_usage(model: &Model, usage: &mut Usage) {
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write;
    calculate_cost(model, usage);
}

/// The six events that carry the message.
fn is_message_event(name: &str) -> bool {
    matches!(
        name,
        "message_start"
            | "message_delta"
            | "message_stop"
            | "content_block_start"
            | "content_block_delta"
            | "content_block_stop"
    )
}

impl SseDecoder for AnthropicDecoder {
    /// As the Anthropic client words it: `"<status> <message>"` with the
    /// body's top-level `message`, else the whole JSON body written compactly.
    fn http_error_message(&self, status: u16, body: &str) -> String {
        let text = match serde_json::from_str::<serde_json::Value>(body.trim()) {
            Ok(value) => match value.get("message") {
                Some(serde_json::Value::String(message)) => message.clone(),
                Some(other) => other.to_string(),
                None => value.to_string(),
            },
            Err(_) => body.trim().to_owned(),
        };
        if text.is_empty() {
            format!("{status} status code (no body)")
        } else {
            format!("{status} {text}")
        }
    }

    fn frame(
        &mut self,
        frame: SseFrameRef<'_>,
        sink: &mut EventSink,
    ) -> Result<Option<StreamEnd>, DecodeError> {
        if frame.event == "error" {
            return Ok(Some(StreamEnd::Error(frame.data.to_owned())));
        }
        if !is_message_event(frame.event) {
            return Ok(None);
        }
        let repaired;
        let fast = crate::fast_event::content_block_delta(frame.data);
        let event = match fast.map_or_else(|| serde_json::from_str(frame.data), Ok) {
            Ok(event) => event,
            Err(first) => {
                repaired = repair_json(frame.data);
                match serde_json::from_str::<StreamEvent<'_>>(&repaired) {
                    Ok(event) => event,
                    Err(_) => {
                        return Err(format!(
                            "Could not parse Anthropic SSE event {}: {first}; data={}",
                            frame.event, frame.data
                        )
                        .into());
                    }
                }
            }
        };
        if !self.apply(event, sink)? {
            return Ok(None);
        }
        Ok(Some(match self.stop {
            Stop::Done(reason) => StreamEnd::Done(reason),
            Stop::Failed => StreamEnd::Error(UNKNOWN_ERROR.to_owned()),
        }))
    }

    fn end_of_stream(&mut self, _sink: &mut EventSink) -> StreamEnd {
        StreamEnd::Error(MISSING_MESSAGE_STOP.to_owned())
    }
}

/// pi's JSON repair, tried only after a strict parse failed: raw control
/// characters inside strings are escaped and a backslash that starts no
/// valid escape is doubled.
fn repair_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut in_string = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !in_string {
            in_string = c == '"';
            out.push(c);
            continue;
        }
        match c {
            '"' => {
                in_string = false;
                out.push(c);
            }
            '\\' => match chars.peek() {
                Some('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u') => {
                    out.push(c);
                    out.extend(chars.next());
                }
                _ => out.push_str("\\\\"),
            },
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
