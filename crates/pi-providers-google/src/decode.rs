//! The pure stream decoder: `streamGenerateContent?alt=sse` chunks to sink calls.
//!
//! Each SSE `data:` frame is a partial `GenerateContentResponse`. Only the
//! first candidate counts. Text parts with `thought: true` extend a thinking
//! block, other text parts a text block; a change of kind closes the open
//! block. A `thoughtSignature` on a text part replaces the block's signature
//! (later parts without one keep it). Each `functionCall` part is a complete
//! tool call: start, one delta with its JSON arguments, end. Calls without an
//! id (or with an id already used in this message) get
//! `<name>_<unix ms>_<counter>`, as pi names them.
//!
//! The wire has no terminal event: the stream simply ends. The last
//! `finishReason` seen decides the outcome (`STOP` stop, `MAX_TOKENS` length,
//! tool calls present toolUse, every other known reason an error). A stream
//! that ends without any finish reason is an error ([`NO_FINISH_REASON`]):
//! nothing tells it from an answer cut short (pi 0.73.1 calls it a stop; see
//! docs/payload-differences.md, "Streams that end before their terminal event").

use std::sync::atomic::{AtomicU64, Ordering};

use pi_ai::{AssistantContent, DoneReason, EventSink, Model, Usage, calculate_cost, now_ms};
use pi_http::{DecodeError, SseDecoder, SseFrameRef, StreamEnd, error_text_from_body, named};

use crate::fast_chunk::{self, Chunk, Part};
use crate::wire::{StreamChunk, StreamError, UsageMetadata};

/// Error text (after the provider's name) of a stream that ended without
/// any `finishReason`.
pub const NO_FINISH_REASON: &str = "Stream ended without finishReason";

/// pi's process-wide counter behind generated tool-call ids.
static TOOL_CALL_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Finish reasons pi maps to an error (every known one but `STOP` and `MAX_TOKENS`).
const ERROR_FINISH_REASONS: &[&str] = &[
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "SAFETY",
    "IMAGE_SAFETY",
    "IMAGE_PROHIBITED_CONTENT",
    "IMAGE_RECITATION",
    "IMAGE_OTHER",
    "RECITATION",
    "FINISH_REASON_UNSPECIFIED",
    "OTHER",
    "LANGUAGE",
    "MALFORMED_FUNCTION_CALL",
    "UNEXPECTED_TOOL_CALL",
    "NO_IMAGE",
];

/// What the last finish reason said.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// No finish reason yet: the stream is not complete.
    Unannounced,
    /// A normal end.
    Stop,
    /// `MAX_TOKENS`.
    Length,
    /// A finish reason with tool calls in the message.
    ToolUse,
    /// An error finish reason (its name).
    Failed(String),
}

/// Which kind of block is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Text,
    Thinking,
}

/// Where generated tool-call ids take their time and counter from.
#[derive(Debug, Clone, Copy)]
enum IdSource {
    /// The clock and pi's process-wide counter.
    System,
    /// A fixed time and a counter of this decoder (reproducible ids).
    Fixed { time_ms: i64, counter: u64 },
}

/// Decodes one Google stream into an [`EventSink`]; see the module docs.
#[derive(Debug)]
pub struct GoogleDecoder {
    model: Model,
    open: Option<(usize, BlockKind)>,
    outcome: Outcome,
    has_tool_calls: bool,
    has_response_id: bool,
    ids: IdSource,
    /// The `usageMetadata` last applied: a chunk that repeats it (as the
    /// API's may until the last) changes nothing.
    last_usage: Option<UsageMetadata>,
}

impl GoogleDecoder {
    /// A decoder for a call of `model` (its prices give the cost).
    pub fn new(model: &Model) -> Self {
        Self {
            model: model.clone(),
            open: None,
            outcome: Outcome::Unannounced,
            has_tool_calls: false,
            has_response_id: false,
            ids: IdSource::System,
            last_usage: None,
        }
    }

    /// Like [`GoogleDecoder::new`], but generated tool-call ids use `time_ms`
    /// and a counter that starts at 1 for this decoder, so they are the same
    /// on every run (for tests and benchmarks).
    pub fn with_fixed_id_time(model: &Model, time_ms: i64) -> Self {
        Self {
            ids: IdSource::Fixed {
                time_ms,
                counter: 0,
            },
            ..Self::new(model)
        }
    }

    /// A fresh id for a call of `name`.
    fn generate_id(&mut self, name: &str) -> String {
        let (time_ms, counter) = match &mut self.ids {
            IdSource::System => (
                now_ms(),
                TOOL_CALL_COUNTER.fetch_add(1, Ordering::Relaxed) + 1,
            ),
            IdSource::Fixed { time_ms, counter } => {
                *counter += 1;
                (*time_ms, *counter)
            }
        };
        format!("{name}_{time_ms}_{counter}")
    }

    /// Emits the end event of the open block, if any.
    fn close_block(&mut self, sink: &mut EventSink) {
        match self.open.take() {
            Some((index, BlockKind::Text)) => sink.text_end(index),
            Some((index, BlockKind::Thinking)) => sink.thinking_end(index),
            None => {}
        }
    }

    /// Applies one part of the first candidate.
    fn part(&mut self, part: Part<'_>, sink: &mut EventSink) {
        if let Some(text) = &part.text {
            let kind = if part.thought == Some(true) {
                BlockKind::Thinking
            } else {
                BlockKind::Text
            };
            let index = match self.open {
                Some((index, open)) if open == kind => index,
                Some(_) | None => {
                    self.close_block(sink);
                    let index = match kind {
                        BlockKind::Text => sink.text_start(),
                        BlockKind::Thinking => sink.thinking_start(),
                    };
                    self.open = Some((index, kind));
                    index
                }
            };
            let signature = part.thought_signature.as_deref().filter(|s| !s.is_empty());
            match kind {
                BlockKind::Text => {
                    if let Some(signature) = signature {
                        sink.set_text_signature(index, signature);
                    }
                    sink.text_delta(index, text);
                }
                BlockKind::Thinking => {
                    if let Some(signature) = signature {
                        sink.update(|message| {
                            if let Some(AssistantContent::Thinking(block)) =
                                message.content.get_mut(index)
                            {
                                block.thinking_signature = Some(signature.to_owned());
                            }
                        });
                    }
                    sink.thinking_delta(index, text);
                }
            }
        }
        if let Some(call) = part.function_call.map(|call| *call) {
            self.close_block(sink);
            let duplicate =
                |id: &str| sink.update(|message| message.tool_calls().any(|c| c.id == id));
            let id = match call.id {
                Some(id) if !id.is_empty() && !duplicate(&id) => id,
                Some(_) | None => self.generate_id(&call.name),
            };
            let arguments = match call.args {
                serde_json::Value::Null => serde_json::Value::Object(serde_json::Map::new()),
                args => args,
            };
            let index = sink.tool_call_start(id, call.name);
            if let Some(signature) = part.thought_signature.filter(|s| !s.is_empty()) {
                sink.update_tool_call(index, |tool_call| {
                    tool_call.thought_signature = Some(signature.into_owned());
                });
            }
            sink.tool_call_delta(index, &arguments.to_string());
            sink.tool_call_end(index);
            self.has_tool_calls = true;
        }
    }

    /// Records a finish reason.
    fn finish_reason(&mut self, reason: &str) -> Result<(), DecodeError> {
        self.outcome = match reason {
            "STOP" => Outcome::Stop,
            "MAX_TOKENS" => Outcome::Length,
            known if ERROR_FINISH_REASONS.contains(&known) => Outcome::Failed(known.to_owned()),
            unknown => return Err(format!("Unhandled stop reason: {unknown}").into()),
        };
        if self.has_tool_calls {
            self.outcome = Outcome::ToolUse;
        }
        Ok(())
    }

    /// pi's usage: cached prompt tokens move from input to cacheRead,
    /// thought tokens count as output, the total is the API's.
    fn usage(&self, metadata: UsageMetadata) -> Usage {
        let mut usage = Usage {
            input: metadata
                .prompt_token_count
                .saturating_sub(metadata.cached_content_token_count),
            output: metadata.candidates_token_count + metadata.thoughts_token_count,
            cache_read: metadata.cached_content_token_count,
            cache_write: 0,
            total_tokens: metadata.total_token_count,
            ..Usage::default()
        };
        calculate_cost(&self.model, &mut usage);
        usage
    }
}

impl SseDecoder for GoogleDecoder {
    /// `"<provider>: <status> <message>"`: the HTTP status and the
    /// message of Google's error body (`error.message`), not the raw JSON
    /// pi's Google client shows; a body that is not JSON is shown trimmed.
    fn http_error_message(&self, status: u16, body: &str) -> String {
        let provider = &self.model.provider;
        format!("{provider}: {status} {}", error_text_from_body(body))
    }

    fn frame(
        &mut self,
        frame: SseFrameRef<'_>,
        sink: &mut EventSink,
    ) -> Result<Option<StreamEnd>, DecodeError> {
        let data = trimmed(frame.data);
        if data.is_empty() {
            return Ok(None);
        }
        let chunk = match fast_chunk::parse(data) {
            Some(chunk) => chunk,
            None => owned_chunk(data)?,
        };
        if let Some(error) = chunk.error {
            return Ok(Some(StreamEnd::Error(describe_error(&error))));
        }
        if !self.has_response_id
            && let Some(id) = chunk.response_id.filter(|id| !id.is_empty())
        {
            sink.update(|message| message.response_id = Some(id.into_owned()));
            self.has_response_id = true;
        }
        let no_candidates = chunk.first_candidate.is_none();
        if let Some(candidate) = chunk.first_candidate {
            if let Some(content) = candidate.content {
                for part in content.parts() {
                    self.part(part, sink);
                }
            }
            if let Some(reason) = candidate.finish_reason.as_deref() {
                self.finish_reason(reason)?;
            }
        }
        if let Some(metadata) = chunk.usage_metadata
            && self.last_usage != Some(metadata)
        {
            let usage = self.usage(metadata);
            sink.update(|message| message.usage = usage);
            self.last_usage = Some(metadata);
        }
        if no_candidates && let Some(reason) = chunk.prompt_feedback.and_then(|f| f.block_reason) {
            return Ok(Some(StreamEnd::Error(format!(
                "Prompt blocked by Google (blockReason: {reason})"
            ))));
        }
        Ok(None)
    }

    fn end_of_stream(&mut self, sink: &mut EventSink) -> StreamEnd {
        self.close_block(sink);
        match &self.outcome {
            Outcome::Unannounced => {
                StreamEnd::Error(named(self.model.provider.as_str(), NO_FINISH_REASON))
            }
            Outcome::Stop => StreamEnd::Done(DoneReason::Stop),
            Outcome::Length => StreamEnd::Done(DoneReason::Length),
            Outcome::ToolUse => StreamEnd::Done(DoneReason::ToolUse),
            Outcome::Failed(reason) => StreamEnd::Error(format!(
                "An unknown error occurred (finishReason: {reason})"
            )),
        }
    }
}

/// `data` without surrounding whitespace (`str::trim`), skipping the
/// Unicode-aware trim when both ends are visible ASCII (the usual frame).
fn trimmed(data: &str) -> &str {
    let visible = |byte: Option<&u8>| byte.is_some_and(u8::is_ascii_graphic);
    if visible(data.as_bytes().first()) && visible(data.as_bytes().last()) {
        data
    } else {
        data.trim()
    }
}

/// `data` read by the owned parse (any number of candidates and parts),
/// or pi's error for a chunk that is not valid JSON of a chunk.
fn owned_chunk(data: &str) -> Result<Chunk<'static>, DecodeError> {
    serde_json::from_str::<StreamChunk>(data)
        .map(Chunk::from)
        .map_err(|e| DecodeError::from(format!("Invalid JSON in Google stream event: {e}")))
}

/// `"<code> <message>"` for an error object inside the stream, as HTTP errors read.
fn describe_error(error: &StreamError) -> String {
    let message = error
        .message
        .as_deref()
        .or(error.status.as_deref())
        .unwrap_or("unknown error");
    match error.code {
        Some(code) => format!("{code} {message}"),
        None => message.to_owned(),
    }
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
