//! Cross-provider replay: the rewrite every provider encoder applies to a
//! transcript before encoding it (pi's `transformMessages`), and the tool-call
//! id normalizers the encoders plug into it.
//!
//! A transcript may mix messages produced by several models. What a provider
//! accepts back depends on whether an assistant message came from the very
//! model being called ("same model": same provider, same api, same model id):
//! - failed turns (`stopReason` `error`/`aborted`) are never replayed;
//! - redacted thinking and signatures only make sense to the model that made
//!   them, so for another model thinking becomes plain text and signatures go;
//! - tool-call ids may be rewritten to the target API's id rules, and the
//!   matching tool results follow the new id;
//! - a tool call left without a result before the next assistant or user
//!   message gets a synthetic error result, since every API requires pairs;
//! - a model without image input gets a text placeholder where an image was,
//!   so no provider encoder ever sees an image it cannot send.

use crate::now_ms;
use crate::transform_iter::TransformIter;
use crate::transformed::TransformedMessage;

use crate::{
    AssistantContent, AssistantMessage, Message, Model, Provider, TextContent, ThinkingContent,
    UserBlock,
};

/// What an image in a user message becomes for a model without image input.
pub const USER_IMAGE_PLACEHOLDER: &str = "(image omitted: model does not support images)";
/// What an image in a tool result becomes for a model without image input.
pub const TOOL_IMAGE_PLACEHOLDER: &str = "(tool image omitted: model does not support images)";

/// Rewrites ids for a provider that restricts tool-call ids; gets the id, the
/// target model and the assistant message the call comes from.
pub type ToolCallIdNormalizer<'a> = &'a dyn Fn(&str, &Model, &AssistantMessage) -> String;

/// Text of the synthetic result given to a tool call that never got one.
pub(crate) const NO_RESULT_TEXT: &str = "No result provided";

/// pi's `transformMessages`: rewrites `messages` for replay to `model`.
///
/// Returns a new vector; the input is untouched and every message is cloned
/// at most once (failed assistant turns are not cloned at all; the images a
/// message loses are not cloned either).
/// - Images, when the model has no image input (pi 0.73.1): in user block
///   content each image becomes a [`USER_IMAGE_PLACEHOLDER`] text block, in
///   tool results a [`TOOL_IMAGE_PLACEHOLDER`] one, except right after that
///   same placeholder text (one already in the content counts), so a run of
///   images leaves one placeholder. Plain-string user content is untouched.
/// - User messages otherwise pass unchanged.
/// - Assistant messages with stop reason `error`/`aborted` are dropped; a
///   call of theirs gets no synthetic result.
/// - Thinking: redacted blocks stay only for the same model; for the same
///   model a block with a non-empty signature stays even with empty text;
///   otherwise empty or whitespace-only thinking is dropped; for another
///   model the rest becomes a plain text block (signature and unknown fields
///   gone).
/// - Text: for another model, rebuilt as a plain block (no `textSignature`).
/// - Tool calls, for another model only: a non-empty `thoughtSignature` is
///   removed, and the id goes through `normalize_tool_call_id` when given.
///   Changed ids are remembered, and a later tool result carrying the old id
///   gets the new one.
/// - Tool calls still unanswered when the next assistant or user message
///   arrives get a synthetic error result (`No result provided`) inserted
///   before that message; calls still unanswered at the end of the
///   transcript get one too (pi 0.73 behaviour).
pub fn transform_messages<'m>(
    messages: impl IntoIterator<Item = &'m Message>,
    model: &Model,
    normalize_tool_call_id: Option<ToolCallIdNormalizer<'_>>,
) -> Vec<Message> {
    transform_messages_at(messages, model, normalize_tool_call_id, now_ms())
}

/// [`transform_messages`] without copies, one message at a time: a message
/// the rewrite leaves as it is (a user message without dropped images, a
/// tool result whose id and images stay, an assistant message of the same
/// model with nothing to drop) is borrowed from `messages`, and a rewritten
/// message exists only until the caller drops it, so an encoder that
/// converts as it reads never holds the rewritten copies of a whole
/// transcript (every assistant message of another model is one). Only the
/// tool results after a tool call are held back, until the call is settled.
pub fn transform_messages_iter<'m, 'n, I>(
    messages: I,
    model: &'n Model,
    normalize_tool_call_id: Option<ToolCallIdNormalizer<'n>>,
) -> TransformIter<'m, 'n, I::IntoIter>
where
    I: IntoIterator<Item = &'m Message>,
{
    TransformIter::at(
        messages.into_iter(),
        model,
        normalize_tool_call_id,
        now_ms(),
    )
}

/// [`transform_messages`] with the timestamp of synthetic results given.
pub(crate) fn transform_messages_at<'m>(
    messages: impl IntoIterator<Item = &'m Message>,
    model: &Model,
    normalize_tool_call_id: Option<ToolCallIdNormalizer<'_>>,
    now: i64,
) -> Vec<Message> {
    transform_borrowed_at(messages, model, normalize_tool_call_id, now)
        .into_iter()
        .map(TransformedMessage::into_owned)
        .collect()
}

/// [`transform_messages`] before the copies, with the timestamp of
/// synthetic results given: untouched messages borrowed.
pub(crate) fn transform_borrowed_at<'m>(
    messages: impl IntoIterator<Item = &'m Message>,
    model: &Model,
    normalize_tool_call_id: Option<ToolCallIdNormalizer<'_>>,
    now: i64,
) -> Vec<TransformedMessage<'m>> {
    let messages = messages.into_iter();
    let mut out = Vec::with_capacity(messages.size_hint().0);
    out.extend(TransformIter::at(
        messages,
        model,
        normalize_tool_call_id,
        now,
    ));
    out
}

/// True for a block the replay to the same model drops: see [`replay_thinking`].
pub(crate) fn dropped_for_same_model(block: &AssistantContent) -> bool {
    match block {
        AssistantContent::Thinking(thinking) => replay_thinking(thinking, true).is_none(),
        AssistantContent::Text(_) | AssistantContent::ToolCall(_) => false,
    }
}

/// Same provider, same api and same model id as the target.
pub(crate) fn is_same_model(message: &AssistantMessage, model: &Model) -> bool {
    message.provider == model.provider && message.api == model.api && message.model == model.id
}

/// Builds the replayed copy of one assistant message.
pub(crate) fn replay_assistant(
    source: &AssistantMessage,
    model: &Model,
    same: bool,
    normalize_tool_call_id: Option<ToolCallIdNormalizer<'_>>,
    id_map: &mut Vec<(String, String)>,
) -> AssistantMessage {
    let mut content = Vec::with_capacity(source.content.len());
    for block in &source.content {
        match block {
            AssistantContent::Thinking(thinking) => {
                if let Some(kept) = replay_thinking(thinking, same) {
                    content.push(kept);
                }
            }
            AssistantContent::Text(text) => {
                if same {
                    content.push(block.clone());
                } else {
                    content.push(AssistantContent::Text(TextContent::new(text.text.clone())));
                }
            }
            AssistantContent::ToolCall(call) => {
                let mut call = call.clone();
                if !same {
                    if call
                        .thought_signature
                        .as_deref()
                        .is_some_and(|s| !s.is_empty())
                    {
                        call.thought_signature = None;
                    }
                    if let Some(normalize) = normalize_tool_call_id {
                        let new_id = normalize(&call.id, model, source);
                        if remember_id(id_map, &call.id, &new_id) {
                            call.id = new_id;
                        }
                    }
                }
                content.push(AssistantContent::ToolCall(call));
            }
        }
    }
    // Every field but the content is copied as is; listed one by one so the
    // content is not cloned only to be thrown away.
    AssistantMessage {
        content,
        api: source.api.clone(),
        provider: source.provider.clone(),
        model: source.model.clone(),
        response_model: source.response_model.clone(),
        response_id: source.response_id.clone(),
        diagnostics: source.diagnostics.clone(),
        usage: source.usage,
        stop_reason: source.stop_reason,
        deferred: source.deferred.clone(),
        error_message: source.error_message.clone(),
        error_class: source.error_class,
        raw_stop_reason: source.raw_stop_reason.clone(),
        end_turn: source.end_turn,
        timestamp: source.timestamp,
        extra: source.extra.clone(),
    }
}

/// What a thinking block becomes on replay, `None` when it is dropped.
fn replay_thinking(block: &ThinkingContent, same: bool) -> Option<AssistantContent> {
    if block.redacted == Some(true) {
        return same.then(|| AssistantContent::Thinking(block.clone()));
    }
    let signed = block
        .thinking_signature
        .as_deref()
        .is_some_and(|s| !s.is_empty());
    if same && signed {
        return Some(AssistantContent::Thinking(block.clone()));
    }
    if is_blank(&block.thinking) {
        return None;
    }
    if same {
        return Some(AssistantContent::Thinking(block.clone()));
    }
    Some(AssistantContent::Text(TextContent::new(
        block.thinking.clone(),
    )))
}

/// `blocks` with every image replaced by a `placeholder` text block, except
/// right after a text block that is exactly `placeholder`; `None` when there
/// is no image, so the caller keeps the message as it is.
pub(crate) fn replace_images(blocks: &[UserBlock], placeholder: &str) -> Option<Vec<UserBlock>> {
    if !blocks.iter().any(|b| matches!(b, UserBlock::Image(_))) {
        return None;
    }
    let mut out = Vec::with_capacity(blocks.len());
    let mut previous_was_placeholder = false;
    for block in blocks {
        match block {
            UserBlock::Image(_) => {
                if !previous_was_placeholder {
                    out.push(UserBlock::text(placeholder));
                }
                previous_was_placeholder = true;
            }
            UserBlock::Text(text) => {
                previous_was_placeholder = text.text == placeholder;
                out.push(block.clone());
            }
        }
    }
    Some(out)
}

/// Records `old -> new_id` when they differ; true when recorded.
pub(crate) fn remember_id(id_map: &mut Vec<(String, String)>, old: &str, new_id: &str) -> bool {
    if new_id == old {
        return false;
    }
    if let Some(entry) = id_map.iter_mut().find(|(o, _)| o == old) {
        new_id.clone_into(&mut entry.1);
    } else {
        id_map.push((old.to_owned(), new_id.to_owned()));
    }
    true
}

/// The new id recorded for `old`, if any.
pub(crate) fn mapped_id<'m>(id_map: &'m [(String, String)], old: &str) -> Option<&'m str> {
    id_map
        .iter()
        .find(|(o, _)| o == old)
        .map(|(_, new)| new.as_str())
}

/// True when `text` is empty or only whitespace as JavaScript's `trim` sees it.
fn is_blank(text: &str) -> bool {
    text.chars().all(is_js_whitespace)
}

/// JavaScript's WhiteSpace and LineTerminator sets (what `String.prototype.trim` removes).
fn is_js_whitespace(c: char) -> bool {
    // Rust's White_Space adds U+0085 and lacks U+FEFF compared with JavaScript.
    c == '\u{feff}' || (c != '\u{85}' && c.is_whitespace())
}

/// Replaces every UTF-16 code unit outside `[a-zA-Z0-9_-]` with `_`, as
/// JavaScript's `replace(/[^a-zA-Z0-9_-]/g, "_")` does: a character outside
/// the Basic Multilingual Plane becomes two underscores. The result is ASCII.
fn sanitize_id_part(part: &str) -> String {
    let mut out = String::with_capacity(part.len());
    for c in part.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
        } else {
            for _ in 0..c.len_utf16() {
                out.push('_');
            }
        }
    }
    out
}

/// The longest prefix of `s` of at most `max` UTF-16 code units (JavaScript's
/// `slice(0, max)`), never splitting a character.
fn cut_utf16(s: &str, max: usize) -> &str {
    let mut units = 0;
    for (at, c) in s.char_indices() {
        units += c.len_utf16();
        if units > max {
            return &s[..at];
        }
    }
    s
}

/// Anthropic (and Bedrock, and Google for models that need ids): every
/// character outside `[a-zA-Z0-9_-]` becomes `_`, then the id is cut to 64.
pub fn normalize_tool_call_id_anthropic(id: &str) -> String {
    let mut out = sanitize_id_part(id);
    out.truncate(64);
    out
}

/// OpenAI Chat Completions (pi 0.58): an id containing `|` (an OpenAI
/// Responses `call|item` id) keeps only the part before the first `|`,
/// sanitized as for Anthropic and cut to 40. Otherwise, for provider
/// `openai`, the id is cut to 40 UTF-16 units as is; other providers keep it.
pub fn normalize_tool_call_id_completions(id: &str, model: &Model) -> String {
    if let Some((call_id, _)) = id.split_once('|') {
        let mut out = sanitize_id_part(call_id);
        out.truncate(40);
        return out;
    }
    if model.provider == Provider::OPENAI {
        return cut_utf16(id, 40).to_owned();
    }
    id.to_owned()
}

/// OpenAI Responses: a `call|item` id becomes `call|item` again with both
/// parts sanitized as for Anthropic, the item prefixed `fc_` unless it starts
/// with `fc`, each part cut to 64 and stripped of trailing `_` (Codex rejects
/// them). Only the first two `|`-separated parts count. An id without `|` is
/// kept.
///
/// pi applies this only when the target provider is `openai`, `openai-codex`
/// or `opencode` (Azure adds `azure-openai-responses`); for any other
/// provider the caller passes ids through unchanged.
pub fn normalize_tool_call_id_responses(id: &str) -> String {
    let mut parts = id.split('|');
    let (Some(call_id), Some(item_id)) = (parts.next(), parts.next()) else {
        return id.to_owned();
    };
    let call_id = sanitize_id_part(call_id);
    let mut item_id = sanitize_id_part(item_id);
    if !item_id.starts_with("fc") {
        item_id.insert_str(0, "fc_");
    }
    let call_id = call_id.get(..64).unwrap_or(&call_id).trim_end_matches('_');
    let item_id = item_id.get(..64).unwrap_or(&item_id).trim_end_matches('_');
    format!("{call_id}|{item_id}")
}

#[cfg(test)]
#[path = "transform_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "transform_id_tests.rs"]
mod id_tests;
