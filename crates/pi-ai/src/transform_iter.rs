//! [`TransformIter`]: pi's `transformMessages` one message at a time (see
//! [`crate::transform_messages_iter`]; the rules are on
//! [`crate::transform_messages`]).

use std::collections::VecDeque;

use crate::transform::{
    NO_RESULT_TEXT, ToolCallIdNormalizer, dropped_for_same_model, is_same_model, mapped_id,
    remember_id, replace_images, replay_assistant,
};
use crate::transform::{TOOL_IMAGE_PLACEHOLDER, USER_IMAGE_PLACEHOLDER};
use crate::transformed::TransformedMessage;
use crate::{Message, Model, ToolResultMessage, UserBlock, UserContent, UserMessage};

/// The transformed transcript of [`crate::transform_messages_iter`], in
/// order. A rewritten message is produced when it is reached and handed
/// out at once, except that an assistant message with tool calls and the
/// results after it are held until the next user or assistant message (or
/// the end) settles the calls, since unanswered calls get a synthetic
/// result after the answered ones.
pub struct TransformIter<'m, 'n, I> {
    messages: I,
    model: &'n Model,
    normalize_tool_call_id: Option<ToolCallIdNormalizer<'n>>,
    /// Timestamp of synthetic results.
    now: i64,
    /// Whether the model takes images.
    images: bool,
    /// Old id -> new id, for tool calls whose id the normalizer changed.
    /// Later assignments win, as with pi's Map.
    id_map: Vec<(String, String)>,
    /// Messages ready to hand out.
    ready: VecDeque<TransformedMessage<'m>>,
    /// The last replayed assistant message whose tool calls still wait for
    /// results, then the results so far: empty when no call waits.
    pending: Vec<TransformedMessage<'m>>,
    /// True once `messages` ended and the last calls are settled.
    finished: bool,
}

impl<'m, 'n, I: Iterator<Item = &'m Message>> TransformIter<'m, 'n, I> {
    /// The transform of `messages` for `model`, synthetic results stamped `now`.
    pub(crate) fn at(
        messages: I,
        model: &'n Model,
        normalize_tool_call_id: Option<ToolCallIdNormalizer<'n>>,
        now: i64,
    ) -> Self {
        Self {
            messages,
            model,
            normalize_tool_call_id,
            now,
            images: model.supports_images(),
            id_map: Vec::new(),
            ready: VecDeque::new(),
            pending: Vec::new(),
            finished: false,
        }
    }

    /// Hands `message` on, after the calls waiting for results if any.
    fn emit(&mut self, message: TransformedMessage<'m>) {
        if self.pending.is_empty() {
            self.ready.push_back(message);
        } else {
            self.pending.push(message);
        }
    }

    /// Reads one message of the transcript.
    fn step(&mut self, message: &'m Message) {
        match message {
            Message::User(user) => {
                self.settle();
                let downgraded = match &user.content {
                    UserContent::Blocks(blocks) if !self.images => {
                        replace_images(blocks, USER_IMAGE_PLACEHOLDER)
                    }
                    UserContent::Blocks(_) | UserContent::Text(_) => None,
                };
                self.emit(match downgraded {
                    Some(blocks) => TransformedMessage::owned(Message::User(UserMessage {
                        content: UserContent::Blocks(blocks),
                        timestamp: user.timestamp,
                        extra: user.extra.clone(),
                    })),
                    None => TransformedMessage::Borrowed(message),
                });
            }
            Message::ToolResult(result) => {
                let downgraded = if self.images {
                    None
                } else {
                    replace_images(&result.content, TOOL_IMAGE_PLACEHOLDER)
                };
                // pi ignores an empty mapped id (falsy) and keeps the old one.
                let new_id = mapped_id(&self.id_map, &result.tool_call_id)
                    .filter(|id| !id.is_empty())
                    .map(str::to_owned);
                if downgraded.is_none() && new_id.is_none() {
                    self.emit(TransformedMessage::Borrowed(message));
                    return;
                }
                let mut result = match downgraded {
                    // Every field but the content is copied, so the images
                    // that go are never cloned.
                    Some(content) => ToolResultMessage {
                        content,
                        tool_call_id: result.tool_call_id.clone(),
                        tool_name: result.tool_name.clone(),
                        details: result.details.clone(),
                        usage: result.usage,
                        added_tool_names: result.added_tool_names.clone(),
                        is_error: result.is_error,
                        timestamp: result.timestamp,
                        extra: result.extra.clone(),
                    },
                    None => result.clone(),
                };
                if let Some(new_id) = new_id {
                    result.tool_call_id = new_id;
                }
                self.emit(TransformedMessage::owned(Message::ToolResult(result)));
            }
            Message::Assistant(assistant) => {
                self.settle();
                let model = self.model;
                let same = is_same_model(assistant, model);
                if assistant.stop_reason.is_failure() {
                    // Not replayed, but pi still records its id rewrites, so
                    // results that follow it are renamed the same way.
                    match self.normalize_tool_call_id {
                        Some(normalize) if !same => {
                            for call in assistant.tool_calls() {
                                let new_id = normalize(&call.id, model, assistant);
                                remember_id(&mut self.id_map, &call.id, &new_id);
                            }
                        }
                        Some(_) | None => {}
                    }
                    return;
                }
                let replayed = if same && !assistant.content.iter().any(dropped_for_same_model) {
                    // The replay of the same model's message is the message.
                    TransformedMessage::Borrowed(message)
                } else {
                    TransformedMessage::owned(Message::Assistant(replay_assistant(
                        assistant,
                        model,
                        same,
                        self.normalize_tool_call_id,
                        &mut self.id_map,
                    )))
                };
                if assistant.tool_calls().next().is_some() {
                    // Its calls wait for their results.
                    self.pending.push(replayed);
                } else {
                    self.ready.push_back(replayed);
                }
            }
        }
    }

    /// Hands on the waiting assistant message and its results, with a
    /// synthetic error result for every call still unanswered.
    fn settle(&mut self) {
        let mut pending = std::mem::take(&mut self.pending).into_iter();
        let Some(first) = pending.next() else {
            return;
        };
        let answers: Vec<TransformedMessage<'m>> = pending.collect();
        let synthetic: Vec<TransformedMessage<'m>> = match &*first {
            Message::Assistant(assistant) => {
                let answered = |id: &str| {
                    answers.iter().any(|m| match &**m {
                        Message::ToolResult(r) => r.tool_call_id == id,
                        Message::User(_) | Message::Assistant(_) => false,
                    })
                };
                assistant
                    .tool_calls()
                    .filter(|call| !answered(&call.id))
                    .map(|call| {
                        TransformedMessage::owned(Message::ToolResult(ToolResultMessage {
                            tool_call_id: call.id.clone(),
                            tool_name: call.name.clone(),
                            content: vec![UserBlock::text(NO_RESULT_TEXT)],
                            is_error: true,
                            timestamp: self.now,
                            ..ToolResultMessage::default()
                        }))
                    })
                    .collect()
            }
            Message::User(_) | Message::ToolResult(_) => Vec::new(),
        };
        self.ready.push_back(first);
        self.ready.extend(answers);
        self.ready.extend(synthetic);
    }
}

impl<'m, I: Iterator<Item = &'m Message>> Iterator for TransformIter<'m, '_, I> {
    type Item = TransformedMessage<'m>;

    fn next(&mut self) -> Option<TransformedMessage<'m>> {
        loop {
            if let Some(message) = self.ready.pop_front() {
                return Some(message);
            }
            if self.finished {
                return None;
            }
            match self.messages.next() {
                Some(message) => self.step(message),
                None => {
                    // pi 0.73 also answers calls still open at the end of
                    // the transcript, so a continued conversation never
                    // ends on a call without its result.
                    self.settle();
                    self.finished = true;
                }
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        // Failed turns are dropped; synthetic results are added.
        (0, None)
    }
}

impl<I> std::fmt::Debug for TransformIter<'_, '_, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransformIter")
            .field("model", &self.model.id)
            .field("ready", &self.ready.len())
            .field("pending", &self.pending.len())
            .finish_non_exhaustive()
    }
}
