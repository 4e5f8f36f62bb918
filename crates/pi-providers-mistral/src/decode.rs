//! The pure stream decoder: Mistral chat chunks -> sink calls.
//!
//! As pi 0.73.1 reads them: text and thinking extend the current block of
//! their kind, and any other kind closes it first (so a message may hold
//! several text blocks, empty ones included: pi opens a text block for the
//! first chunk's `content: ""`); a tool call closes the current block and is
//! keyed by `id:index` (a missing or `"null"` id is derived from the index);
//! tool calls end after everything else, at the end of the stream. The
//! outcome is the last `finish_reason`. `data: [DONE]` without one is a stop
//! (as pi); a body that ends with neither is an error, since nothing tells it
//! from a cut stream (pi calls it a stop; see docs/payload-differences.md).

use pi_ai::{DoneReason, EventSink, Model, Usage, calculate_cost};
use pi_http::{DecodeError, SseDecoder, SseFrameRef, StreamEnd};
use serde_json::Value;

use crate::ids::derive_tool_call_id;
use crate::wire::{Arguments, ChunkUsage, CompletionChunk, DeltaContent, DeltaPart, ToolCallDelta};

/// Error text of a body that ended with neither a `finish_reason` nor `[DONE]`.
pub const NO_FINISH_REASON: &str = "Stream ended without finish_reason";
/// pi's text for a stream whose finish reason was `error`.
const UNKNOWN_ERROR: &str = "An unknown error occurred";
/// Longest error body quoted in an error message.
const MAX_ERROR_BODY_CHARS: usize = 4000;

/// The open text or thinking block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Current {
    Text(usize),
    Thinking(usize),
}

/// Decoder state of one response.
#[derive(Debug)]
pub struct MistralDecoder {
    model: Model,
    current: Option<Current>,
    /// (id, stream index) -> content index, in first-seen order.
    tools: Vec<(String, u64, usize)>,
    finish: Option<StreamEnd>,
    has_response_id: bool,
}

impl MistralDecoder {
    /// A decoder for a response of `model` (its prices turn usage into cost).
    pub fn new(model: &Model) -> Self {
        Self {
            model: model.clone(),
            current: None,
            tools: Vec::new(),
            finish: None,
            has_response_id: false,
        }
    }

    fn close_current(&mut self, sink: &mut EventSink) {
        match self.current.take() {
            Some(Current::Text(index)) => sink.text_end(index),
            Some(Current::Thinking(index)) => sink.thinking_end(index),
            None => {}
        }
    }

    fn text(&mut self, text: &str, sink: &mut EventSink) {
        let index = match self.current {
            Some(Current::Text(index)) => index,
            _ => {
                self.close_current(sink);
                let index = sink.text_start();
                self.current = Some(Current::Text(index));
                index
            }
        };
        sink.text_delta(index, text);
    }

    fn thinking(&mut self, parts: &[Value], sink: &mut EventSink) {
        let text: String = parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect();
        if text.is_empty() {
            return;
        }
        let index = match self.current {
            Some(Current::Thinking(index)) => index,
            _ => {
                self.close_current(sink);
                let index = sink.thinking_start();
                self.current = Some(Current::Thinking(index));
                index
            }
        };
        sink.thinking_delta(index, &text);
    }

    fn tool_call(&mut self, call: &ToolCallDelta<'_>, sink: &mut EventSink) {
        self.close_current(sink);
        let stream_index = call.index.unwrap_or(0);
        let given = call
            .id
            .as_deref()
            .filter(|id| !id.is_empty() && *id != "null");
        let derived;
        let id = match given {
            Some(id) => id,
            None => {
                derived = derive_tool_call_id(&format!("toolcall:{stream_index}"), 0);
                derived.as_str()
            }
        };
        let known = self
            .tools
            .iter()
            .find(|(known, at, _)| *at == stream_index && known == id);
        let index = match known {
            Some((_, _, index)) => *index,
            None => {
                let index = sink.tool_call_start(id, call.function.name.as_ref());
                self.tools.push((id.to_owned(), stream_index, index));
                index
            }
        };
        match &call.function.arguments {
            Arguments::Text(piece) => sink.tool_call_delta(index, piece),
            Arguments::Missing => sink.tool_call_delta(index, "{}"),
            Arguments::Value(value) => sink.tool_call_delta(index, &value.to_string()),
        }
    }

    fn apply(&mut self, chunk: &CompletionChunk<'_>, sink: &mut EventSink) {
        if !self.has_response_id
            && let Some(id) = chunk.id.as_deref().filter(|id| !id.is_empty())
        {
            self.has_response_id = true;
            sink.update(|m| m.response_id = Some(id.to_owned()));
        }
        if let Some(usage) = &chunk.usage {
            let mut usage = parse_usage(usage);
            calculate_cost(&self.model, &mut usage);
            sink.update(|m| m.usage = usage);
        }
        let Some(choice) = chunk.first_choice.as_ref() else {
            return;
        };
        if let Some(reason) = choice.finish_reason.as_deref().filter(|r| !r.is_empty()) {
            self.finish = Some(map_finish_reason(reason));
        }
        match &choice.delta.content {
            Some(DeltaContent::Text(text)) => self.text(text, sink),
            Some(DeltaContent::Parts(parts)) => {
                for part in parts {
                    match part {
                        DeltaPart::Text { text } => self.text(text, sink),
                        DeltaPart::Thinking { thinking } => self.thinking(thinking, sink),
                        DeltaPart::Other => {}
                    }
                }
            }
            None => {}
        }
        for call in choice.delta.tool_calls.iter().flatten() {
            self.tool_call(call, sink);
        }
    }

    /// Closes the open block, then every tool call, and reports the outcome.
    fn finish(&mut self, sink: &mut EventSink, unannounced: StreamEnd) -> StreamEnd {
        self.close_current(sink);
        for (_, _, index) in self.tools.drain(..) {
            sink.tool_call_end(index);
        }
        self.finish.take().unwrap_or(unannounced)
    }
}

impl SseDecoder for MistralDecoder {
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
            return Ok(Some(self.finish(sink, StreamEnd::Done(DoneReason::Stop))));
        }
        let chunk: CompletionChunk<'_> = serde_json::from_str(data)
            .map_err(|e| format!("Could not parse stream chunk as JSON: {e}"))?;
        self.apply(&chunk, sink);
        Ok(None)
    }

    fn end_of_stream(&mut self, sink: &mut EventSink) -> StreamEnd {
        self.finish(sink, StreamEnd::Error(NO_FINISH_REASON.to_owned()))
    }

    fn http_error_message(&self, status: u16, body: &str) -> String {
        http_error_message(status, body)
    }
}

/// pi's wording of an HTTP error: `Mistral API error (<status>): <body>`,
/// the trimmed body cut at 4000 characters.
pub fn http_error_message(status: u16, body: &str) -> String {
    let body = body.trim();
    if body.is_empty() {
        return format!("Mistral API error ({status}): API error occurred");
    }
    let total = body.chars().count();
    if total <= MAX_ERROR_BODY_CHARS {
        return format!("Mistral API error ({status}): {body}");
    }
    let head: String = body.chars().take(MAX_ERROR_BODY_CHARS).collect();
    format!(
        "Mistral API error ({status}): {head}... [truncated {} chars]",
        total - MAX_ERROR_BODY_CHARS
    )
}

/// pi's finish-reason mapping: unknown reasons are a stop, `error` an error.
fn map_finish_reason(reason: &str) -> StreamEnd {
    match reason {
        "length" | "model_length" => StreamEnd::Done(DoneReason::Length),
        "tool_calls" => StreamEnd::Done(DoneReason::ToolUse),
        "error" => StreamEnd::Error(UNKNOWN_ERROR.to_owned()),
        _ => StreamEnd::Done(DoneReason::Stop),
    }
}

/// Usage as pi reads it: no cache counts; the total is the server's, else
/// input + output. Cost is left at zero.
fn parse_usage(raw: &ChunkUsage) -> Usage {
    let input = raw.prompt_tokens.unwrap_or(0);
    let output = raw.completion_tokens.unwrap_or(0);
    Usage {
        input,
        output,
        total_tokens: raw
            .total_tokens
            .filter(|t| *t > 0)
            .unwrap_or(input + output),
        ..Usage::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_are_quoted_and_cut() {
        assert_eq!(
            http_error_message(429, " {\"message\":\"slow\"} "),
            "Mistral API error (429): {\"message\":\"slow\"}"
        );
        let long = "x".repeat(4005);
        assert!(http_error_message(500, &long).ends_with("... [truncated 5 chars]"));
    }

    #[test]
    fn finish_reasons_as_pi() {
        assert!(matches!(
            map_finish_reason("model_length"),
            StreamEnd::Done(DoneReason::Length)
        ));
        assert!(matches!(
            map_finish_reason("tool_calls"),
            StreamEnd::Done(DoneReason::ToolUse)
        ));
        assert!(matches!(
            map_finish_reason("whatever"),
            StreamEnd::Done(DoneReason::Stop)
        ));
        assert!(matches!(map_finish_reason("error"), StreamEnd::Error(_)));
    }
}
