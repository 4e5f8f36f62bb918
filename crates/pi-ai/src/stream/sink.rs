//! `EventSink`: how a provider builds its assistant message and emits events.
//! Mutations happen in place on the shared partial message; each method is
//! O(size of its input), never O(size of the message). Methods are
//! synchronous: the producer runs only while the consumer polls, so the
//! queue holds at most what one poll decoded.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::queue::QueueSender;
use super::{AssistantMessageEvent, DoneReason, ErrorReason, SharedMessage};
use crate::{
    AssistantContent, AssistantMessage, ErrorClass, PartialJson, StopReason, TextContent,
    ThinkingContent, ToolCall,
};

/// Indices of tool calls whose arguments are still streaming; shared with the
/// stream driver so a cancelled stream can drop them.
pub(crate) type OpenToolCalls = Arc<Mutex<BTreeSet<usize>>>;

/// The producer side of an [`super::AssistantMessageEventStream`]. A provider
/// gets one per call, reports what it decodes, and ends with [`EventSink::done`]
/// or [`EventSink::error`] (both consume the sink, so at most one terminal
/// event is possible; if neither is called the stream ends with an error).
pub struct EventSink {
    tx: QueueSender,
    partial: SharedMessage,
    open: OpenToolCalls,
    parsers: Vec<(usize, PartialJson)>,
    cancel: CancellationToken,
    end_blocks_on_abort: Arc<AtomicBool>,
}

impl EventSink {
    pub(crate) fn new(
        tx: QueueSender,
        partial: SharedMessage,
        open: OpenToolCalls,
        cancel: CancellationToken,
        end_blocks_on_abort: Arc<AtomicBool>,
    ) -> Self {
        Self {
            tx,
            partial,
            open,
            parsers: Vec::new(),
            cancel,
            end_blocks_on_abort,
        }
    }

    /// Asks the stream to end the text and thinking blocks still open
    /// (`text_end` / `thinking_end`) before its `aborted` error when the
    /// call is cancelled, as pi's openai-completions provider does (its
    /// client ends the body quietly and the blocks are finished).
    pub fn end_blocks_on_abort(&self) {
        self.end_blocks_on_abort.store(true, Ordering::Relaxed);
    }

    /// The message being built.
    pub fn partial(&self) -> &SharedMessage {
        &self.partial
    }

    /// The cancellation token of this call.
    pub fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }

    /// True when the consumer dropped the stream; the producer may stop.
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Changes the partial message in place (usage, response id, ...) without an event.
    pub fn update<R>(&self, f: impl FnOnce(&mut AssistantMessage) -> R) -> R {
        f(&mut self.partial.lock())
    }

    fn emit(&self, event: AssistantMessageEvent) {
        // A closed queue means the consumer is gone: nothing left to tell.
        self.tx.send(event);
    }

    /// Emits `start`.
    pub fn start(&mut self) {
        let partial = self.partial.clone();
        self.emit(AssistantMessageEvent::Start { partial });
    }

    fn push_block(&self, block: AssistantContent) -> usize {
        let mut message = self.partial.lock();
        message.content.push(block);
        message.content.len() - 1
    }

    /// Opens a text block and emits `text_start`; returns its content index.
    pub fn text_start(&mut self) -> usize {
        let content_index = self.push_block(AssistantContent::Text(TextContent::default()));
        let partial = self.partial.clone();
        self.emit(AssistantMessageEvent::TextStart {
            content_index,
            partial,
        });
        content_index
    }

    /// Appends text to block `content_index` and emits `text_delta`.
    pub fn text_delta(&mut self, content_index: usize, delta: &str) {
        if let Some(AssistantContent::Text(t)) = self.partial.lock().content.get_mut(content_index)
        {
            t.text.push_str(delta);
        }
        let partial = self.partial.clone();
        self.emit(AssistantMessageEvent::TextDelta {
            content_index,
            delta: delta.to_owned(),
            partial,
        });
    }

    /// Emits `text_end` for block `content_index`.
    pub fn text_end(&mut self, content_index: usize) {
        let content = match self.partial.lock().content.get(content_index) {
            Some(AssistantContent::Text(t)) => t.text.clone(),
            _ => String::new(),
        };
        let partial = self.partial.clone();
        self.emit(AssistantMessageEvent::TextEnd {
            content_index,
            content,
            partial,
        });
    }

    /// Sets the opaque signature of text block `content_index`.
    pub fn set_text_signature(&self, content_index: usize, signature: impl Into<String>) {
        if let Some(AssistantContent::Text(t)) = self.partial.lock().content.get_mut(content_index)
        {
            t.text_signature = Some(signature.into());
        }
    }

    /// Opens a thinking block and emits `thinking_start`; returns its content index.
    pub fn thinking_start(&mut self) -> usize {
        self.thinking_block_start(ThinkingContent::default())
    }

    /// Opens a thinking block with initial fields (e.g. redacted) and emits `thinking_start`.
    pub fn thinking_block_start(&mut self, block: ThinkingContent) -> usize {
        let content_index = self.push_block(AssistantContent::Thinking(block));
        let partial = self.partial.clone();
        self.emit(AssistantMessageEvent::ThinkingStart {
            content_index,
            partial,
        });
        content_index
    }

    /// Appends thinking to block `content_index` and emits `thinking_delta`.
    pub fn thinking_delta(&mut self, content_index: usize, delta: &str) {
        if let Some(AssistantContent::Thinking(t)) =
            self.partial.lock().content.get_mut(content_index)
        {
            t.thinking.push_str(delta);
        }
        let partial = self.partial.clone();
        self.emit(AssistantMessageEvent::ThinkingDelta {
            content_index,
            delta: delta.to_owned(),
            partial,
        });
    }

    /// Appends to the opaque signature of thinking block `content_index`.
    pub fn append_thinking_signature(&self, content_index: usize, fragment: &str) {
        if let Some(AssistantContent::Thinking(t)) =
            self.partial.lock().content.get_mut(content_index)
        {
            t.thinking_signature
                .get_or_insert_with(String::new)
                .push_str(fragment);
        }
    }

    /// Emits `thinking_end` for block `content_index`.
    pub fn thinking_end(&mut self, content_index: usize) {
        let content = match self.partial.lock().content.get(content_index) {
            Some(AssistantContent::Thinking(t)) => t.thinking.clone(),
            _ => String::new(),
        };
        let partial = self.partial.clone();
        self.emit(AssistantMessageEvent::ThinkingEnd {
            content_index,
            content,
            partial,
        });
    }

    /// Opens a tool call (arguments `{}`) and emits `toolcall_start`; returns its content index.
    pub fn tool_call_start(&mut self, id: impl Into<String>, name: impl Into<String>) -> usize {
        let call = ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: Value::Object(serde_json::Map::new()),
            ..ToolCall::default()
        };
        let content_index = self.push_block(AssistantContent::ToolCall(call));
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(content_index);
        self.parsers.push((content_index, PartialJson::new()));
        let partial = self.partial.clone();
        self.emit(AssistantMessageEvent::ToolCallStart {
            content_index,
            partial,
        });
        content_index
    }

    /// Changes the tool call at `content_index` in place (late id or name, thought signature).
    pub fn update_tool_call(&self, content_index: usize, f: impl FnOnce(&mut ToolCall)) {
        if let Some(AssistantContent::ToolCall(call)) =
            self.partial.lock().content.get_mut(content_index)
        {
            f(call);
        }
    }

    /// Appends a JSON fragment to the arguments of the tool call at
    /// `content_index`, re-parses them best-effort in place, and emits `toolcall_delta`.
    pub fn tool_call_delta(&mut self, content_index: usize, fragment: &str) {
        if let Some((_, parser)) = self.parsers.iter_mut().find(|(i, _)| *i == content_index)
            && let Some(AssistantContent::ToolCall(call)) =
                self.partial.lock().content.get_mut(content_index)
        {
            parser.push(fragment, &mut call.arguments);
        }
        let partial = self.partial.clone();
        self.emit(AssistantMessageEvent::ToolCallDelta {
            content_index,
            delta: fragment.to_owned(),
            partial,
        });
    }

    /// Closes the tool call at `content_index`: its arguments are parsed
    /// exactly (falling back to the best-effort value for invalid JSON) and
    /// `toolcall_end` is emitted with the complete call.
    pub fn tool_call_end(&mut self, content_index: usize) {
        let parser = self
            .parsers
            .iter()
            .position(|(i, _)| *i == content_index)
            .map(|at| self.parsers.swap_remove(at).1);
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&content_index);
        let tool_call = {
            let mut message = self.partial.lock();
            match message.content.get_mut(content_index) {
                Some(AssistantContent::ToolCall(call)) => {
                    if let Some(parser) = parser
                        && !parser.text().is_empty()
                    {
                        match parser.finish() {
                            Ok(value) => call.arguments = value,
                            Err(e) => tracing::warn!(
                                tool = %call.name,
                                "tool call arguments are not valid JSON ({e}); keeping the best-effort parse"
                            ),
                        }
                    }
                    Box::new(call.clone())
                }
                _ => return,
            }
        };
        let partial = self.partial.clone();
        self.emit(AssistantMessageEvent::ToolCallEnd {
            content_index,
            tool_call,
            partial,
        });
    }

    /// Ends the stream successfully. The stop reason follows `reason`.
    pub fn done(self, reason: DoneReason) {
        let message = {
            let mut m = self.partial.lock();
            m.stop_reason = reason.into();
            m.clone()
        };
        self.emit(AssistantMessageEvent::Done {
            reason,
            message: Box::new(message),
        });
    }

    /// Ends the stream with an error, keeping the content received so far
    /// (for `aborted`, tool calls whose arguments were still streaming are dropped).
    pub fn error(self, reason: ErrorReason, error_message: impl Into<String>) {
        self.fail(reason, None, error_message);
    }

    /// Ends the stream with an error of a known class (an HTTP status, a
    /// timeout, a reset connection): as [`EventSink::error`], and the
    /// message's `error_class` is set so callers need not read the text.
    pub fn error_with_class(self, class: ErrorClass, error_message: impl Into<String>) {
        let reason = match class {
            ErrorClass::Aborted => ErrorReason::Aborted,
            _ => ErrorReason::Error,
        };
        self.fail(reason, Some(class), error_message);
    }

    fn fail(
        self,
        reason: ErrorReason,
        class: Option<ErrorClass>,
        error_message: impl Into<String>,
    ) {
        let error = settle_failure(
            &self.partial,
            &self.open,
            reason,
            class,
            error_message.into(),
        );
        self.emit(AssistantMessageEvent::Error {
            reason,
            error: Box::new(error),
        });
    }
}

/// The most bytes of an error text kept in a message (and so in the
/// session file): a provider that answers an error with a huge body (an
/// HTML page, a dump) leaves its start and how much was cut.
pub const MAX_ERROR_TEXT_BYTES: usize = 16 * 1024;

/// `text` cut to [`MAX_ERROR_TEXT_BYTES`] at a character boundary, with a
/// note of how many bytes were cut.
pub fn bounded_error_text(mut text: String) -> String {
    if text.len() <= MAX_ERROR_TEXT_BYTES {
        return text;
    }
    let mut end = MAX_ERROR_TEXT_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text.len() - end;
    text.truncate(end);
    text.push_str(&format!("... [{cut} more bytes of the error cut]"));
    text
}

/// The final message of a failed stream: the partial content (minus
/// incomplete tool calls when aborted), the stop reason and the message.
pub(crate) fn settle_failure(
    partial: &SharedMessage,
    open: &OpenToolCalls,
    reason: ErrorReason,
    class: Option<ErrorClass>,
    error_message: String,
) -> AssistantMessage {
    let open = open.lock().unwrap_or_else(PoisonError::into_inner).clone();
    let mut message = partial.lock();
    message.stop_reason = match reason {
        ErrorReason::Aborted => StopReason::Aborted,
        ErrorReason::Error => StopReason::Error,
    };
    message.error_message = Some(bounded_error_text(error_message));
    message.error_class = class;
    let mut settled = message.clone();
    drop(message);
    if reason == ErrorReason::Aborted && !open.is_empty() {
        let mut index = 0;
        settled.content.retain(|_| {
            let keep = !open.contains(&index);
            index += 1;
            keep
        });
    }
    settled
}

impl From<DoneReason> for StopReason {
    fn from(value: DoneReason) -> Self {
        match value {
            DoneReason::Stop => Self::Stop,
            DoneReason::Length => Self::Length,
            DoneReason::ToolUse => Self::ToolUse,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_error_text_is_cut_at_a_character_boundary() {
        assert_eq!(bounded_error_text("short".into()), "short");
        let long = "é".repeat(MAX_ERROR_TEXT_BYTES);
        let cut = bounded_error_text(long.clone());
        let (kept, note) = cut.split_once("... [").unwrap();
        assert!(kept.len() <= MAX_ERROR_TEXT_BYTES);
        assert!(long.starts_with(kept));
        assert_eq!(
            note,
            format!("{} more bytes of the error cut]", long.len() - kept.len())
        );
    }
}
