//! The pure stream decoder: Chat Completions SSE chunks -> sink calls.
//!
//! As in pi 0.73.1, a message has at most one text block and one thinking
//! block (content and reasoning deltas may interleave with tool-call deltas
//! in any order); tool calls are keyed by their stream `index` (falling back
//! to their id); every block is closed at the end of the stream, in content
//! order. The stream ends at `data: [DONE]` or when the body ends. Its
//! outcome is the last `finish_reason`; without one, `[DONE]` is a normal
//! stop (as pi 0.73.1; some OpenAI-compatible local servers never send a
//! finish reason) but a body that just ends is an error, since nothing
//! tells it from a truncated answer (see docs/payload-differences.md,
//! "Streams that end before their terminal event").

use pi_ai::{DoneReason, EventSink, Model, ThinkingContent, Usage, calculate_cost};
use pi_http::{DecodeError, SseDecoder, SseFrameRef, StreamEnd, is_truthy, named};
use serde_json::Value;

use crate::fast_chunk::{self, Chunk};
use crate::wire::{ChatCompletionChunk, ChunkDelta, ChunkUsage, ToolCallDelta};

/// Error text (after the provider's name) of a body that ended with neither
/// a `finish_reason` nor `[DONE]`.
pub const NO_FINISH_REASON: &str = "Stream ended without finish_reason";

/// Kind of a content block, by content index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Text,
    Thinking,
    ToolCall,
}

/// A streaming tool call.
#[derive(Debug)]
struct ToolSlot {
    content_index: usize,
    /// The `index` of its deltas, once known.
    stream_index: Option<u64>,
    /// Current id (may arrive late).
    id: String,
    /// Whether a name is set.
    named: bool,
}

/// Decoder state of one response.
#[derive(Debug)]
pub struct OpenAiCompletionsDecoder {
    model: Model,
    blocks: Vec<BlockKind>,
    text: Option<usize>,
    thinking: Option<usize>,
    tools: Vec<ToolSlot>,
    /// Every id seen for a tool call (gateways may change it mid-stream) -> slot.
    tool_ids: Vec<(String, usize)>,
    /// Encrypted reasoning details that arrived before their tool call.
    pending_details: Vec<(String, Value)>,
    /// Outcome announced by the last `finish_reason`.
    finish: Option<StreamEnd>,
    has_response_id: bool,
    has_response_model: bool,
}

impl OpenAiCompletionsDecoder {
    /// A decoder for a response of `model` (its prices turn usage into cost).
    pub fn new(model: &Model) -> Self {
        Self {
            model: model.clone(),
            blocks: Vec::new(),
            text: None,
            thinking: None,
            tools: Vec::new(),
            tool_ids: Vec::new(),
            pending_details: Vec::new(),
            finish: None,
            has_response_id: false,
            has_response_model: false,
        }
    }

    /// Applies one parsed chunk.
    fn apply(&mut self, chunk: &Chunk<'_>, sink: &mut EventSink) {
        if !self.has_response_id
            && let Some(id) = chunk.id.as_deref().filter(|id| !id.is_empty())
        {
            self.has_response_id = true;
            sink.update(|m| m.response_id = Some(id.to_owned()));
        }
        if !self.has_response_model
            && let Some(model) = chunk.model.as_deref()
            && !model.is_empty()
            && model != self.model.id
        {
            self.has_response_model = true;
            sink.update(|m| m.response_model = Some(model.to_owned()));
        }
        if let Some(usage) = &chunk.usage {
            self.set_usage(usage, sink);
        }
        let Some(choice) = &chunk.first_choice else {
            return;
        };
        if chunk.usage.is_none()
            && let Some(usage) = &choice.usage
        {
            self.set_usage(usage, sink);
        }
        if let Some(reason) = choice.finish_reason.as_deref().filter(|r| !r.is_empty()) {
            self.finish = Some(map_finish_reason(reason));
        }
        if let Some(delta) = &choice.delta {
            self.apply_delta(delta, sink);
        }
    }

    fn apply_delta(&mut self, delta: &ChunkDelta<'_>, sink: &mut EventSink) {
        if let Some(text) = delta.content.as_deref().filter(|t| !t.is_empty()) {
            let index = match self.text {
                Some(index) => index,
                None => {
                    let index = sink.text_start();
                    self.push_block(index, BlockKind::Text);
                    self.text = Some(index);
                    index
                }
            };
            sink.text_delta(index, text);
        }
        // Servers name the reasoning field differently; the first non-empty
        // one wins (some send the same text under two names).
        let reasoning = [
            ("reasoning_content", &delta.reasoning_content),
            ("reasoning", &delta.reasoning),
            ("reasoning_text", &delta.reasoning_text),
        ]
        .into_iter()
        .find_map(|(field, value)| {
            value
                .as_deref()
                .filter(|v| !v.is_empty())
                .map(|v| (field, v))
        });
        if let Some((field, text)) = reasoning {
            let index = match self.thinking {
                Some(index) => index,
                None => {
                    let index = sink.thinking_block_start(ThinkingContent {
                        thinking_signature: Some(field.to_owned()),
                        ..ThinkingContent::default()
                    });
                    self.push_block(index, BlockKind::Thinking);
                    self.thinking = Some(index);
                    index
                }
            };
            sink.thinking_delta(index, text);
        }
        for call in delta.tool_calls.iter().flatten() {
            self.apply_tool_call(call, sink);
        }
        for detail in delta.reasoning_details.iter().flatten() {
            self.apply_reasoning_detail(detail, sink);
        }
    }

    fn push_block(&mut self, index: usize, kind: BlockKind) {
        if self.blocks.len() <= index {
            self.blocks.resize(index + 1, kind);
        }
        if let Some(slot) = self.blocks.get_mut(index) {
            *slot = kind;
        }
    }

    /// The slot a fragment belongs to: by stream index, else by id; a new
    /// tool call when neither matches.
    fn tool_slot(&mut self, call: &ToolCallDelta<'_>, sink: &mut EventSink) -> usize {
        let id = call.id.as_deref().filter(|id| !id.is_empty());
        let found = call
            .index
            .and_then(|si| self.tools.iter().position(|t| t.stream_index == Some(si)))
            .or_else(|| {
                let id = id?;
                self.tool_ids
                    .iter()
                    .find(|(known, _)| known == id)
                    .map(|(_, slot)| *slot)
            });
        let slot = match found {
            Some(slot) => slot,
            None => {
                let id = id.unwrap_or_default().to_owned();
                let name = call
                    .function
                    .as_ref()
                    .and_then(|f| f.name.as_deref())
                    .unwrap_or_default();
                let content_index = sink.tool_call_start(id.clone(), name);
                self.push_block(content_index, BlockKind::ToolCall);
                if let Some(at) = self.pending_details.iter().position(|(d, _)| *d == id) {
                    let (_, detail) = self.pending_details.swap_remove(at);
                    let signature = detail.to_string();
                    sink.update_tool_call(content_index, |c| c.thought_signature = Some(signature));
                }
                self.tools.push(ToolSlot {
                    content_index,
                    stream_index: None,
                    id,
                    named: !name.is_empty(),
                });
                self.tools.len() - 1
            }
        };
        if let Some(tool) = self.tools.get_mut(slot)
            && tool.stream_index.is_none()
        {
            tool.stream_index = call.index;
        }
        if let Some(id) = id
            && !self
                .tool_ids
                .iter()
                .any(|(known, s)| known == id && *s == slot)
        {
            self.tool_ids.retain(|(known, _)| known != id);
            self.tool_ids.push((id.to_owned(), slot));
        }
        slot
    }

    fn apply_tool_call(&mut self, call: &ToolCallDelta<'_>, sink: &mut EventSink) {
        let slot = self.tool_slot(call, sink);
        let Some(tool) = self.tools.get_mut(slot) else {
            return;
        };
        let index = tool.content_index;
        if tool.id.is_empty()
            && let Some(id) = call.id.as_deref().filter(|id| !id.is_empty())
        {
            id.clone_into(&mut tool.id);
            sink.update_tool_call(index, |c| id.clone_into(&mut c.id));
        }
        let function = call.function.as_ref();
        if !tool.named
            && let Some(name) = function
                .and_then(|f| f.name.as_deref())
                .filter(|n| !n.is_empty())
        {
            tool.named = true;
            sink.update_tool_call(index, |c| name.clone_into(&mut c.name));
        }
        let fragment = function
            .and_then(|f| f.arguments.as_deref())
            .unwrap_or_default();
        sink.tool_call_delta(index, fragment);
    }

    /// OpenRouter: encrypted reasoning tied to a tool call becomes that
    /// call's `thoughtSignature` (the detail's JSON), replayed as `reasoning_details`.
    fn apply_reasoning_detail(&mut self, detail: &Value, sink: &mut EventSink) {
        let field = |name: &str| detail.get(name).filter(|v| is_truthy(v));
        if detail.get("type").and_then(Value::as_str) != Some("reasoning.encrypted")
            || field("data").is_none()
        {
            return;
        }
        let Some(id) = field("id").and_then(Value::as_str) else {
            return;
        };
        match self.tools.iter().find(|t| t.id == id) {
            Some(tool) => {
                let signature = detail.to_string();
                sink.update_tool_call(tool.content_index, |c| {
                    c.thought_signature = Some(signature)
                });
            }
            None => {
                self.pending_details.retain(|(known, _)| known != id);
                self.pending_details.push((id.to_owned(), detail.clone()));
            }
        }
    }

    fn set_usage(&self, raw: &ChunkUsage, sink: &mut EventSink) {
        let mut usage = parse_usage(raw);
        calculate_cost(&self.model, &mut usage);
        sink.update(|m| m.usage = usage);
    }

    /// Closes every block in content order and reports the outcome: the
    /// last `finish_reason`, else `unannounced`.
    fn finish(&mut self, sink: &mut EventSink, unannounced: StreamEnd) -> StreamEnd {
        for (index, kind) in self.blocks.iter().enumerate() {
            match kind {
                BlockKind::Text => sink.text_end(index),
                BlockKind::Thinking => sink.thinking_end(index),
                BlockKind::ToolCall => sink.tool_call_end(index),
            }
        }
        self.blocks.clear();
        self.finish.take().unwrap_or(unannounced)
    }
}

impl SseDecoder for OpenAiCompletionsDecoder {
    /// pi's client ends an aborted body quietly and the provider finishes
    /// the open blocks (`text_end`) before its `Request was aborted`.
    fn ends_blocks_on_abort(&self) -> bool {
        true
    }

    fn frame(
        &mut self,
        frame: SseFrameRef<'_>,
        sink: &mut EventSink,
    ) -> Result<Option<StreamEnd>, DecodeError> {
        let data = frame.data;
        if data.trim().is_empty() {
            return Ok(None);
        }
        if data.starts_with("[DONE]") {
            // The server closed the answer itself: a normal stop, as pi.
            return Ok(Some(self.finish(sink, StreamEnd::Done(DoneReason::Stop))));
        }
        let chunk = match fast_chunk::parse(data) {
            Some(chunk) => chunk,
            None => serde_json::from_str::<ChatCompletionChunk<'_>>(data)
                .map(Chunk::from)
                .map_err(|e| {
                    let text = format!("Could not parse stream chunk as JSON: {e}");
                    named(self.model.provider.as_str(), text)
                })?,
        };
        if let Some(error) = chunk.error.as_ref().filter(|e| is_truthy(e)) {
            return Ok(Some(StreamEnd::Error(stream_error_text(error))));
        }
        self.apply(&chunk, sink);
        Ok(None)
    }

    fn end_of_stream(&mut self, sink: &mut EventSink) -> StreamEnd {
        // No `[DONE]` and no finish reason: possibly cut short (pi would
        // call it a stop); an error, which auto-retry retries.
        let text = named(self.model.provider.as_str(), NO_FINISH_REASON);
        self.finish(sink, StreamEnd::Error(text))
    }
}

/// pi's finish-reason mapping; anything but stop/length/tool calls is an error.
fn map_finish_reason(reason: &str) -> StreamEnd {
    match reason {
        "stop" | "end" => StreamEnd::Done(DoneReason::Stop),
        "length" => StreamEnd::Done(DoneReason::Length),
        "tool_calls" | "function_call" => StreamEnd::Done(DoneReason::ToolUse),
        other => StreamEnd::Error(format!("Provider finish_reason: {other}")),
    }
}

/// Usage as pi counts it: cache reads (and OpenRouter's cache writes) come
/// out of `prompt_tokens`; `completion_tokens` already includes reasoning
/// tokens; the total is computed locally. Cost is left at zero.
pub fn parse_usage(raw: &ChunkUsage) -> Usage {
    let details = raw.prompt_tokens_details.unwrap_or_default();
    let prompt = raw.prompt_tokens.unwrap_or(0);
    let cache_read = details
        .cached_tokens
        .or(raw.prompt_cache_hit_tokens)
        .unwrap_or(0);
    let cache_write = details.cache_write_tokens.unwrap_or(0);
    let input = prompt
        .saturating_sub(cache_read)
        .saturating_sub(cache_write);
    let output = raw.completion_tokens.unwrap_or(0);
    Usage {
        input,
        output,
        cache_read,
        cache_write,
        total_tokens: input + output + cache_read + cache_write,
        ..Usage::default()
    }
}

/// The message of an error object sent inside the stream, as the OpenAI SDK
/// words it, plus OpenRouter's `metadata.raw` on its own line.
fn stream_error_text(error: &Value) -> String {
    let mut text = match error.get("message").filter(|m| is_truthy(m)) {
        Some(Value::String(message)) => message.clone(),
        Some(other) => other.to_string(),
        None => error.to_string(),
    };
    if let Some(raw) = error.pointer("/metadata/raw").filter(|r| is_truthy(r)) {
        text.push('\n');
        match raw {
            Value::String(raw) => text.push_str(raw),
            other => text.push_str(&other.to_string()),
        }
    }
    text
}
