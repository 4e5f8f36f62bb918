//! The pure stream decoder: ConverseStream events -> sink calls, as pi
//! 0.73.1's `streamBedrock` maps them. Blocks are keyed by Bedrock's
//! `contentBlockIndex` while open; a text or reasoning delta for an index
//! with no open block opens one (Bedrock sends `contentBlockStart` only for
//! tool use); `contentBlockStop` ends the block. `messageStop` gives the
//! stop reason (an unknown one fails the call once the body ends, as pi's
//! "An unknown error occurred"), `metadata` the usage. Exceptions end the
//! call with pi's prefixed text (`Throttling error: ...`). A body that ends
//! without `messageStop` is an error ([`NO_MESSAGE_STOP`]), since nothing
//! tells it from an answer cut short (pi 0.73.1 calls it a stop; see
//! docs/payload-differences.md, "Streams that end before their terminal
//! event"); one that ends after it without `metadata` only lacks the usage.

use pi_ai::{DoneReason, EventSink, Model, ThinkingContent, Usage, calculate_cost};
use pi_http::{DecodeError, SseDecoder, SseFrameRef, StreamEnd, named};
use serde::Deserialize;

use crate::eventstream::{ERROR_PREFIX, EXCEPTION_PREFIX};
use crate::wire::{
    ContentBlockDelta, ContentBlockStart, ContentBlockStop, ErrorBody, MessageStart, MessageStop,
    Metadata,
};

/// pi's text for a stream whose stop reason it could not map.
pub const UNKNOWN_ERROR: &str = "An unknown error occurred";
/// Error text (after the provider's name) of a body that ended without
/// `messageStop`.
pub const NO_MESSAGE_STOP: &str = "Stream ended without messageStop";

/// The kind of an open block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
    ToolCall,
}

/// Decoder state of one response.
#[derive(Debug)]
pub struct BedrockDecoder {
    model: Model,
    /// Open blocks: (Bedrock index, content index, kind).
    open: Vec<(Option<u64>, usize, Kind)>,
    /// The `messageStop` reason, once it came.
    stop: Option<Stop>,
}

/// A `messageStop` reason: mapped, or one pi does not know (the stream
/// ends with [`UNKNOWN_ERROR`]).
#[derive(Debug)]
enum Stop {
    Mapped(DoneReason),
    Unknown,
}

/// pi's `mapStopReason`.
pub fn map_stop_reason(reason: &str) -> Option<DoneReason> {
    match reason {
        "end_turn" | "stop_sequence" => Some(DoneReason::Stop),
        "max_tokens" | "model_context_window_exceeded" => Some(DoneReason::Length),
        "tool_use" => Some(DoneReason::ToolUse),
        _ => None,
    }
}

/// The readable prefix pi gives an AWS exception name (the name itself
/// for names it does not list).
pub fn error_prefix(name: &str) -> &str {
    match name {
        "InternalServerException" => "Internal server error",
        "ModelStreamErrorException" => "Model stream error",
        "ValidationException" => "Validation error",
        "ThrottlingException" => "Throttling error",
        "ServiceUnavailableException" => "Service unavailable",
        other => other,
    }
}

/// The exceptions ConverseStream declares in its event union (sent as
/// `:exception-type` in lowerCamelCase).
const STREAM_EXCEPTIONS: [&str; 5] = [
    "internalServerException",
    "modelStreamErrorException",
    "validationException",
    "throttlingException",
    "serviceUnavailableException",
];

fn parse<'a, T: Deserialize<'a>>(frame: SseFrameRef<'a>) -> Result<T, DecodeError> {
    serde_json::from_str(frame.data).map_err(|e| {
        DecodeError::new(format!(
            "Invalid JSON in the Bedrock {} event: {e}",
            frame.event
        ))
    })
}

/// The `errorMessage` of an in-stream exception: declared ones as pi words
/// an SDK service exception (`<prefix>: <message>`), others as the SDK
/// reports an undeclared one (the payload text).
pub fn exception_message(exception_type: &str, payload: &str) -> String {
    if !STREAM_EXCEPTIONS.contains(&exception_type) {
        return payload.to_owned();
    }
    let mut name = String::with_capacity(exception_type.len());
    let mut chars = exception_type.chars();
    if let Some(first) = chars.next() {
        name.extend(first.to_uppercase());
        name.push_str(chars.as_str());
    }
    let body: ErrorBody = serde_json::from_str(payload).unwrap_or_default();
    let message = body.text().unwrap_or("UnknownError");
    format!("{}: {message}", error_prefix(&name))
}

/// The `errorMessage` of an HTTP error answer, as pi words the AWS SDK's
/// service exception: the error name from `x-amzn-errortype` (else the
/// body's `code` or `__type`, else `Unknown`), cleaned as the SDK cleans it,
/// mapped through [`error_prefix`], then the body's `message`. A body that
/// is not JSON is quoted after the status instead.
pub fn http_error_message(status: u16, headers: &[(String, String)], body: &str) -> String {
    let trimmed = body.trim();
    let value: serde_json::Value = match serde_json::from_str(trimmed) {
        Ok(value) => value,
        Err(_) if trimmed.is_empty() => serde_json::Value::Null,
        Err(_) => return pi_http::status_error_message(status, body),
    };
    let field = |key: &str| {
        value.as_object().and_then(|object| {
            object
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| v)
        })
    };
    let as_text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let code = headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("x-amzn-errortype"))
        .map(|(_, v)| v.clone())
        .or_else(|| field("code").and_then(as_text))
        .or_else(|| value.get("__type").and_then(as_text));
    let name = code.map_or_else(|| "Unknown".to_owned(), |code| sanitize_error_code(&code));
    let message = value
        .get("message")
        .or_else(|| value.get("Message"))
        .and_then(serde_json::Value::as_str)
        .unwrap_or("UnknownError");
    format!("{}: {message}", error_prefix(&name))
}

/// The SDK's `sanitizeErrorCode`: up to the first `,`, then up to the
/// first `:`, then after a `#`.
fn sanitize_error_code(raw: &str) -> String {
    let value = raw.split(',').next().unwrap_or_default();
    let value = value.split(':').next().unwrap_or_default();
    match value.split_once('#') {
        Some((_, after)) => after.split('#').next().unwrap_or_default().to_owned(),
        None => value.to_owned(),
    }
}

impl BedrockDecoder {
    /// A decoder for a response of `model` (its prices turn usage into cost).
    pub fn new(model: &Model) -> Self {
        Self {
            model: model.clone(),
            open: Vec::new(),
            stop: None,
        }
    }

    fn find(&self, index: Option<u64>) -> Option<(usize, Kind)> {
        self.open
            .iter()
            .find(|(i, _, _)| *i == index)
            .map(|&(_, content, kind)| (content, kind))
    }

    fn delta(&mut self, event: ContentBlockDelta<'_>, sink: &mut EventSink) {
        let index = event.content_block_index;
        let Some(delta) = event.delta else { return };
        let block = self.find(index);
        if let Some(text) = delta.text {
            let content = match block {
                None => {
                    let content = sink.text_start();
                    self.open.push((index, content, Kind::Text));
                    Some(content)
                }
                Some((content, Kind::Text)) => Some(content),
                Some(_) => None,
            };
            if let Some(content) = content {
                sink.text_delta(content, &text);
            }
        } else if let (Some(tool), Some((content, Kind::ToolCall))) = (&delta.tool_use, block) {
            sink.tool_call_delta(content, tool.input.as_deref().unwrap_or_default());
        } else if let Some(reasoning) = delta.reasoning_content {
            let content = match block {
                None => {
                    let content = sink.thinking_block_start(ThinkingContent {
                        thinking_signature: Some(String::new()),
                        ..ThinkingContent::default()
                    });
                    self.open.push((index, content, Kind::Thinking));
                    Some(content)
                }
                Some((content, Kind::Thinking)) => Some(content),
                Some(_) => None,
            };
            if let Some(content) = content {
                if let Some(text) = reasoning.text.as_deref().filter(|t| !t.is_empty()) {
                    sink.thinking_delta(content, text);
                }
                if let Some(signature) = reasoning.signature.as_deref().filter(|s| !s.is_empty()) {
                    sink.append_thinking_signature(content, signature);
                }
            }
        }
    }

    fn stop_block(&mut self, index: Option<u64>, sink: &mut EventSink) {
        let Some(at) = self.open.iter().position(|(i, _, _)| *i == index) else {
            return;
        };
        let (_, content, kind) = self.open.remove(at);
        match kind {
            Kind::Text => sink.text_end(content),
            Kind::Thinking => sink.thinking_end(content),
            Kind::ToolCall => sink.tool_call_end(content),
        }
    }

    fn usage(&self, metadata: Metadata, sink: &EventSink) {
        let Some(usage) = metadata.usage else { return };
        sink.update(|message| {
            let input = usage.input_tokens.unwrap_or(0);
            let output = usage.output_tokens.unwrap_or(0);
            let mut next = Usage {
                input,
                output,
                cache_read: usage.cache_read_input_tokens.unwrap_or(0),
                cache_write: usage.cache_write_input_tokens.unwrap_or(0),
                total_tokens: usage
                    .total_tokens
                    .filter(|&total| total > 0)
                    .unwrap_or(input + output),
                ..Usage::default()
            };
            calculate_cost(&self.model, &mut next);
            message.usage = next;
        });
    }
}

impl SseDecoder for BedrockDecoder {
    fn frame(
        &mut self,
        frame: SseFrameRef<'_>,
        sink: &mut EventSink,
    ) -> Result<Option<StreamEnd>, DecodeError> {
        match frame.event {
            "messageStart" => {
                let start: MessageStart = parse(frame)?;
                if start.role.as_deref() != Some("assistant") {
                    return Err(DecodeError::new(
                        "Unexpected assistant message start but got user message start instead",
                    ));
                }
            }
            "contentBlockStart" => {
                let start: ContentBlockStart = parse(frame)?;
                if let Some(tool) = start.start.and_then(|s| s.tool_use) {
                    let content = sink.tool_call_start(
                        tool.tool_use_id.unwrap_or_default(),
                        tool.name.unwrap_or_default(),
                    );
                    self.open
                        .push((start.content_block_index, content, Kind::ToolCall));
                }
            }
            "contentBlockDelta" => self.delta(parse(frame)?, sink),
            "contentBlockStop" => {
                let stop: ContentBlockStop = parse(frame)?;
                self.stop_block(stop.content_block_index, sink);
            }
            "messageStop" => {
                let stop: MessageStop = parse(frame)?;
                let reason = stop.stop_reason.unwrap_or_default();
                self.stop = Some(map_stop_reason(&reason).map_or(Stop::Unknown, Stop::Mapped));
            }
            "metadata" => self.usage(parse(frame)?, sink),
            event => {
                if let Some(kind) = event.strip_prefix(EXCEPTION_PREFIX) {
                    return Ok(Some(StreamEnd::Error(exception_message(kind, frame.data))));
                }
                if event.starts_with(ERROR_PREFIX) {
                    let text = if frame.data.is_empty() {
                        "UnknownError".to_owned()
                    } else {
                        frame.data.to_owned()
                    };
                    return Ok(Some(StreamEnd::Error(text)));
                }
                // Events the SDK does not know are skipped, as it skips them.
            }
        }
        Ok(None)
    }

    fn end_of_stream(&mut self, _sink: &mut EventSink) -> StreamEnd {
        match &self.stop {
            None => StreamEnd::Error(named(self.model.provider.as_str(), NO_MESSAGE_STOP)),
            Some(Stop::Mapped(reason)) => StreamEnd::Done(*reason),
            Some(Stop::Unknown) => StreamEnd::Error(UNKNOWN_ERROR.to_owned()),
        }
    }

    fn http_error_text(&self, status: u16, headers: &[(String, String)], body: &str) -> String {
        http_error_message(status, headers, body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_errors_are_named_as_the_sdk_names_them() {
        let header = |v: &str| vec![("x-amzn-errortype".to_owned(), v.to_owned())];
        assert_eq!(
            http_error_message(
                400,
                &header("ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"),
                r#"{"message":"bad input"}"#
            ),
            "Validation error: bad input"
        );
        assert_eq!(
            http_error_message(
                403,
                &header("AccessDeniedException"),
                r#"{"Message":"denied"}"#
            ),
            "AccessDeniedException: denied"
        );
        assert_eq!(
            http_error_message(500, &[], r#"{"message":"boom"}"#),
            "Unknown: boom"
        );
        assert_eq!(
            http_error_message(
                429,
                &[],
                r#"{"__type":"com.amazon#ThrottlingException","message":"slow"}"#
            ),
            "Throttling error: slow"
        );
        assert_eq!(http_error_message(500, &[], ""), "Unknown: UnknownError");
        assert_eq!(
            http_error_message(502, &[], "<html>bad gateway</html>"),
            "502 <html>bad gateway</html>"
        );
    }

    #[test]
    fn exceptions_get_pis_prefixes() {
        assert_eq!(
            exception_message("throttlingException", r#"{"message":"Too many tokens"}"#),
            "Throttling error: Too many tokens"
        );
        assert_eq!(
            exception_message(
                "modelStreamErrorException",
                r#"{"message":"x","originalStatusCode":500}"#
            ),
            "Model stream error: x"
        );
        assert_eq!(
            exception_message("newException", r#"{"message":"y"}"#),
            r#"{"message":"y"}"#
        );
    }

    #[test]
    fn stop_reasons_map_as_pi() {
        assert_eq!(map_stop_reason("end_turn"), Some(DoneReason::Stop));
        assert_eq!(map_stop_reason("stop_sequence"), Some(DoneReason::Stop));
        assert_eq!(map_stop_reason("max_tokens"), Some(DoneReason::Length));
        assert_eq!(
            map_stop_reason("model_context_window_exceeded"),
            Some(DoneReason::Length)
        );
        assert_eq!(map_stop_reason("tool_use"), Some(DoneReason::ToolUse));
        assert_eq!(map_stop_reason("guardrail_intervened"), None);
        assert_eq!(map_stop_reason("content_filtered"), None);
    }
}
