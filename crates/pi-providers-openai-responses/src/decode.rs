//! The pure stream decoder: Responses API SSE events become sink calls,
//! following pi 0.73.1's `processResponsesStream`.
//!
//! One output item is open at a time. A reasoning item becomes a thinking
//! block whose signature is the completed item as JSON (replayed verbatim
//! later); a message becomes a text block whose signature is
//! `{"v":1,"id":…,"phase"?:…}`; a function call becomes a tool call with the
//! id `call_id|item_id`. `response.completed` and `response.incomplete`
//! carry usage and the status; `response.failed` and `error` end the stream
//! with an error. A body that ends before any of these four is an error
//! ([`NO_TERMINAL_EVENT`]), since nothing tells it from an answer cut
//! short, unless the server closed it with `data: [DONE]` (see
//! docs/payload-differences.md, "Streams that end before their terminal event").

use pi_ai::{AssistantContent, DoneReason, EventSink, Model, calculate_cost, parse_partial_json};
use pi_http::{DecodeError, SseDecoder, SseFrameRef, StreamEnd, is_truthy, named};
use serde::Deserialize;
use serde_json::Value;

use crate::fast_event::{DeltaKind, delta_event};
use crate::wire::{
    AddedItem, ContentPart, DoneFunctionCall, DoneMessage, DoneMessagePart, DoneReasoning,
    ResponseObject, StreamEvent, TextSignatureV1,
};

/// What pi reports when a response ends with status `failed` or `cancelled`.
const UNKNOWN_ERROR: &str = "An unknown error occurred";

/// Error text (after the provider's name) of a body that ended before a
/// terminal event (`response.completed`, `response.incomplete`,
/// `response.failed`, `error`) and without `data: [DONE]`.
pub const NO_TERMINAL_EVENT: &str = "Stream ended without response.completed";

/// The output item being streamed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Current {
    /// Nothing open (or an item type pi ignores).
    None,
    /// A reasoning item at `index`, with the number of summary parts seen.
    Reasoning { index: usize, summary_parts: usize },
    /// A message at `index`, with the kind of its latest text-bearing part.
    Message {
        index: usize,
        last_part: Option<ContentPart>,
    },
    /// A function call at `index`, with its arguments so far.
    FunctionCall { index: usize, partial_json: String },
}

/// Decodes one Responses API stream into events.
#[derive(Debug, Clone)]
pub struct OpenAiResponsesDecoder {
    model: Model,
    service_tier: Option<String>,
    current: Current,
    /// Whether `data: [DONE]` arrived (the server closed the answer itself).
    done_line: bool,
}

impl OpenAiResponsesDecoder {
    /// A decoder for a call to `model` with the requested `service_tier`
    /// (used for pricing when the response does not name its tier).
    pub fn new(model: Model, service_tier: Option<String>) -> Self {
        Self {
            model,
            service_tier,
            current: Current::None,
            done_line: false,
        }
    }

    /// Records a `data: [DONE]` line, for wires that read the frames
    /// themselves: a body that ends after it without a terminal event is a
    /// stop, not a cut.
    pub fn saw_done_line(&mut self) {
        self.done_line = true;
    }

    /// Applies one of the five delta events.
    fn delta(&mut self, kind: DeltaKind, delta: &str, sink: &mut EventSink) {
        match (kind, &mut self.current) {
            (
                DeltaKind::ReasoningSummaryText,
                Current::Reasoning {
                    index,
                    summary_parts: 1..,
                },
            )
            | (DeltaKind::ReasoningText, Current::Reasoning { index, .. }) => {
                sink.thinking_delta(*index, delta);
            }
            (
                DeltaKind::OutputText,
                Current::Message {
                    index,
                    last_part: Some(ContentPart::OutputText),
                },
            )
            | (
                DeltaKind::Refusal,
                Current::Message {
                    index,
                    last_part: Some(ContentPart::Refusal),
                },
            ) => sink.text_delta(*index, delta),
            (
                DeltaKind::FunctionCallArguments,
                Current::FunctionCall {
                    index,
                    partial_json,
                },
            ) => {
                partial_json.push_str(delta);
                sink.tool_call_delta(*index, delta);
            }
            _ => {}
        }
    }

    /// Applies one parsed event (wires that read the same events with
    /// their own framing or error rules call this directly).
    pub fn apply(
        &mut self,
        event: StreamEvent,
        sink: &mut EventSink,
    ) -> Result<Option<StreamEnd>, DecodeError> {
        match event {
            StreamEvent::Created { response } => {
                if let Some(id) = response.id {
                    sink.update(|m| m.response_id = Some(id));
                }
            }
            StreamEvent::OutputItemAdded { item } => self.item_added(item, sink),
            StreamEvent::ReasoningSummaryPartAdded {} => {
                if let Current::Reasoning { summary_parts, .. } = &mut self.current {
                    *summary_parts += 1;
                }
            }
            StreamEvent::ReasoningSummaryTextDelta { delta } => {
                self.delta(DeltaKind::ReasoningSummaryText, &delta, sink);
            }
            StreamEvent::ReasoningSummaryPartDone {} => {
                if let Current::Reasoning {
                    index,
                    summary_parts: 1..,
                } = self.current
                {
                    sink.thinking_delta(index, "\n\n");
                }
            }
            StreamEvent::ReasoningTextDelta { delta } => {
                self.delta(DeltaKind::ReasoningText, &delta, sink);
            }
            StreamEvent::ContentPartAdded { part } => {
                if let Current::Message { last_part, .. } = &mut self.current
                    && matches!(part, ContentPart::OutputText | ContentPart::Refusal)
                {
                    *last_part = Some(part);
                }
            }
            StreamEvent::OutputTextDelta { delta } => {
                self.delta(DeltaKind::OutputText, &delta, sink);
            }
            StreamEvent::RefusalDelta { delta } => {
                self.delta(DeltaKind::Refusal, &delta, sink);
            }
            StreamEvent::FunctionCallArgumentsDelta { delta } => {
                self.delta(DeltaKind::FunctionCallArguments, &delta, sink);
            }
            StreamEvent::FunctionCallArgumentsDone { arguments } => {
                if let Current::FunctionCall {
                    index,
                    partial_json,
                } = &mut self.current
                {
                    // The remainder the deltas did not bring, if any. A final
                    // text that is not a continuation cannot be re-fed; the
                    // streamed arguments stand.
                    if let Some(rest) = arguments.strip_prefix(partial_json.as_str())
                        && !rest.is_empty()
                    {
                        sink.tool_call_delta(*index, rest);
                    }
                    *partial_json = arguments;
                }
            }
            StreamEvent::OutputItemDone { item } => self.item_done(&item, sink)?,
            StreamEvent::Completed { response } | StreamEvent::Incomplete { response } => {
                return Ok(Some(self.finish(response, sink)));
            }
            StreamEvent::Failed { response } => return Err(failure_text(&response).into()),
            StreamEvent::Error {
                code,
                message,
                error,
            } => {
                if let Some(error) = error.filter(is_truthy) {
                    return Err(api_error_text(&error).into());
                }
                let message = message.unwrap_or_else(|| "Unknown error".to_owned());
                return Err(DecodeError::new(match code.filter(|c| !c.is_null()) {
                    Some(Value::String(code)) => format!("Error Code {code}: {message}"),
                    Some(code) => format!("Error Code {code}: {message}"),
                    None => message,
                }));
            }
            StreamEvent::Other => {}
        }
        Ok(None)
    }

    /// `response.output_item.added`: opens the matching block.
    fn item_added(&mut self, item: AddedItem, sink: &mut EventSink) {
        self.current = match item {
            AddedItem::Reasoning {} => Current::Reasoning {
                index: sink.thinking_start(),
                summary_parts: 0,
            },
            AddedItem::Message {} => Current::Message {
                index: sink.text_start(),
                last_part: None,
            },
            AddedItem::FunctionCall {
                id,
                call_id,
                name,
                arguments,
            } => {
                let index =
                    sink.tool_call_start(format!("{call_id}|{}", id.unwrap_or_default()), name);
                let partial_json = arguments.unwrap_or_default();
                if !partial_json.is_empty() {
                    sink.tool_call_delta(index, &partial_json);
                }
                Current::FunctionCall {
                    index,
                    partial_json,
                }
            }
            // pi keeps the previous item current for types it does not know.
            AddedItem::Other => return,
        };
    }

    /// `response.output_item.done`: settles the open block from the
    /// complete item.
    fn item_done(&mut self, item: &Value, sink: &mut EventSink) -> Result<(), DecodeError> {
        let invalid =
            |e: serde_json::Error| DecodeError::new(format!("Invalid output item in stream: {e}"));
        match (item.get("type").and_then(Value::as_str), &self.current) {
            (Some("reasoning"), Current::Reasoning { index, .. }) => {
                let index = *index;
                let done = DoneReasoning::deserialize(item).map_err(invalid)?;
                let joined = |parts: Option<Vec<crate::wire::TextPart>>| {
                    parts
                        .unwrap_or_default()
                        .into_iter()
                        .map(|p| p.text)
                        .collect::<Vec<_>>()
                        .join("\n\n")
                };
                let summary = joined(done.summary);
                let text = if summary.is_empty() {
                    joined(done.content)
                } else {
                    summary
                };
                let signature = item.to_string();
                sink.update(|m| {
                    if let Some(AssistantContent::Thinking(block)) = m.content.get_mut(index) {
                        if !text.is_empty() {
                            block.thinking = text;
                        }
                        block.thinking_signature = Some(signature);
                    }
                });
                sink.thinking_end(index);
            }
            (Some("message"), Current::Message { index, .. }) => {
                let index = *index;
                let done = DoneMessage::deserialize(item).map_err(invalid)?;
                let mut text = String::new();
                for part in &done.content {
                    match part {
                        DoneMessagePart::OutputText { text: t } => text.push_str(t),
                        DoneMessagePart::Refusal { refusal } => text.push_str(refusal),
                        DoneMessagePart::Other => {}
                    }
                }
                let signature = TextSignatureV1 {
                    v: 1,
                    id: done.id,
                    phase: done.phase.filter(|p| !p.is_empty()),
                };
                let signature = serde_json::to_string(&signature).map_err(invalid)?;
                sink.update(|m| {
                    if let Some(AssistantContent::Text(block)) = m.content.get_mut(index) {
                        block.text = text;
                        block.text_signature = Some(signature);
                    }
                });
                sink.text_end(index);
            }
            (Some("function_call"), current) => {
                let done = DoneFunctionCall::deserialize(item).map_err(invalid)?;
                let final_arguments = done.arguments.as_deref().filter(|a| !a.is_empty());
                let index = match current {
                    Current::FunctionCall {
                        index,
                        partial_json,
                    } => {
                        if partial_json.is_empty() {
                            let args = parse_partial_json(final_arguments.unwrap_or("{}"));
                            sink.update_tool_call(*index, |call| call.arguments = args);
                        }
                        *index
                    }
                    // No `added` event was seen: the call is opened here.
                    Current::None | Current::Reasoning { .. } | Current::Message { .. } => {
                        let id = format!("{}|{}", done.call_id, done.id.unwrap_or_default());
                        let index = sink.tool_call_start(id, done.name);
                        let args = parse_partial_json(final_arguments.unwrap_or("{}"));
                        sink.update_tool_call(index, |call| call.arguments = args);
                        index
                    }
                };
                sink.tool_call_end(index);
            }
            _ => return Ok(()),
        }
        self.current = Current::None;
        Ok(())
    }

    /// `response.completed` / `response.incomplete`: usage, cost, response
    /// id and the stop reason.
    fn finish(&self, response: ResponseObject, sink: &mut EventSink) -> StreamEnd {
        let tier = response
            .service_tier
            .as_deref()
            .or(self.service_tier.as_deref());
        let multiplier = service_tier_multiplier(&self.model, tier);
        let model = &self.model;
        let has_tool_calls = sink.update(|m| {
            if let Some(id) = response.id {
                m.response_id = Some(id);
            }
            if let Some(usage) = response.usage {
                let cached = usage
                    .input_tokens_details
                    .and_then(|d| d.cached_tokens)
                    .unwrap_or(0);
                m.usage.input = usage.input_tokens.unwrap_or(0).saturating_sub(cached);
                m.usage.output = usage.output_tokens.unwrap_or(0);
                m.usage.cache_read = cached;
                m.usage.cache_write = 0;
                m.usage.total_tokens = usage.total_tokens.unwrap_or(0);
            }
            calculate_cost(model, &mut m.usage);
            if multiplier != 1.0 {
                let cost = &mut m.usage.cost;
                cost.input *= multiplier;
                cost.output *= multiplier;
                cost.cache_read *= multiplier;
                cost.cache_write *= multiplier;
                cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write;
            }
            m.tool_calls().next().is_some()
        });
        match response.status.as_deref() {
            None | Some("completed" | "in_progress" | "queued") if has_tool_calls => {
                StreamEnd::Done(DoneReason::ToolUse)
            }
            None | Some("completed" | "in_progress" | "queued") => {
                StreamEnd::Done(DoneReason::Stop)
            }
            Some("incomplete") => StreamEnd::Done(DoneReason::Length),
            Some("failed" | "cancelled") => StreamEnd::Error(UNKNOWN_ERROR.to_owned()),
            Some(other) => StreamEnd::Error(format!("Unhandled stop reason: {other}")),
        }
    }
}

impl SseDecoder for OpenAiResponsesDecoder {
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
            self.saw_done_line();
            return Ok(None);
        }
        if let Some((kind, delta)) = delta_event(data) {
            self.delta(kind, &delta, sink);
            return Ok(None);
        }
        match serde_json::from_str::<StreamEvent>(data) {
            Ok(event) => self.apply(event, sink),
            Err(error) => Err(invalid_event_text(data, &error).into()),
        }
    }

    /// The body ended before a terminal event. pi 0.73.1 calls that a
    /// stop (its SDK sees a clean end of body); here it is an error keeping
    /// the content so far, which auto-retry retries, unless `data: [DONE]`
    /// closed the answer (a stop, as in pi).
    fn end_of_stream(&mut self, _sink: &mut EventSink) -> StreamEnd {
        if self.done_line {
            return StreamEnd::Done(DoneReason::Stop);
        }
        StreamEnd::Error(named(self.model.provider.as_str(), NO_TERMINAL_EVENT))
    }
}

/// Price multiplier of a service tier: `flex` 0.5, `priority` 2 (2.5 for gpt-5.5).
fn service_tier_multiplier(model: &Model, tier: Option<&str>) -> f64 {
    match tier {
        Some("flex") => 0.5,
        Some("priority") if model.id == "gpt-5.5" => 2.5,
        Some("priority") => 2.0,
        _ => 1.0,
    }
}

/// The error text of `response.failed`.
fn failure_text(response: &ResponseObject) -> String {
    if let Some(error) = &response.error {
        let code = match &error.code {
            Some(Value::String(code)) if !code.is_empty() => code.clone(),
            Some(code) if is_truthy(code) => code.to_string(),
            _ => "unknown".to_owned(),
        };
        let message = error
            .message
            .as_deref()
            .filter(|m| !m.is_empty())
            .unwrap_or("no message");
        return format!("{code}: {message}");
    }
    match response
        .incomplete_details
        .as_ref()
        .and_then(|d| d.reason.as_deref())
        .filter(|r| !r.is_empty())
    {
        Some(reason) => format!("incomplete: {reason}"),
        None => "Unknown error (no error details in response)".to_owned(),
    }
}

/// The text of a frame that is not a valid event: a proxy's `{"error":…}`
/// object as the OpenAI SDK reports it, else the parse error.
fn invalid_event_text(data: &str, error: &serde_json::Error) -> String {
    if let Ok(value) = serde_json::from_str::<Value>(data)
        && let Some(api_error) = value.get("error").filter(|e| is_truthy(e))
    {
        return api_error_text(api_error);
    }
    format!("Invalid openai-responses stream event: {error}")
}

/// The OpenAI SDK's text for an error object: its `message`, else the
/// object as JSON.
fn api_error_text(error: &Value) -> String {
    match error.get("message") {
        Some(Value::String(message)) if !message.is_empty() => message.clone(),
        Some(message) if is_truthy(message) => message.to_string(),
        _ => error.to_string(),
    }
}
