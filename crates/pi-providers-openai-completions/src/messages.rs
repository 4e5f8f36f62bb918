//! The request's `messages`, converted from the context as they are
//! written: a long transcript's request never holds all its wire messages
//! at once (for 20,000 messages they were 4 MB next to the body).

use std::fmt;

use pi_ai::{ContextRef, Model};
use serde::ser::{Serialize, SerializeSeq, Serializer};

use crate::compat::ResolvedCompat;
use crate::request::{convert_each, has_text, mark_text, markable_content};
use crate::wire::{CacheControl, ChatMessage};

/// The messages of a Chat Completions request: the context's transcript
/// (after pi's cross-provider rewrite), system prompt first, converted
/// each time they are read ([`Self::for_each`], [`Serialize`]).
#[derive(Clone)]
pub struct ChatMessages<'c> {
    model: &'c Model,
    context: ContextRef<'c>,
    compat: ResolvedCompat,
    cache: Option<CacheMarks>,
}

/// Where Anthropic-style cache markers go.
#[derive(Debug, Clone)]
struct CacheMarks {
    marker: CacheControl,
    /// Position of the last user or assistant message with text.
    last_turn: Option<usize>,
}

impl<'c> ChatMessages<'c> {
    /// The messages of `context` for `model`.
    pub(crate) fn new(model: &'c Model, context: ContextRef<'c>, compat: ResolvedCompat) -> Self {
        Self {
            model,
            context,
            compat,
            cache: None,
        }
    }

    /// Marks the system prompt and the last user or assistant message
    /// whose content has text with `marker` (finding that message converts
    /// the transcript once).
    pub(crate) fn mark_for_cache(&mut self, marker: CacheControl) {
        let mut last_turn = None;
        let mut at = 0;
        convert_each(
            self.model,
            self.context,
            &self.compat,
            &mut |mut message| {
                if is_turn(&message) && markable_content(&mut message).is_some_and(|c| has_text(c))
                {
                    last_turn = Some(at);
                }
                at += 1;
            },
        );
        self.cache = Some(CacheMarks { marker, last_turn });
    }

    /// Hands each message to `each`, in order, as it is converted.
    pub fn for_each(&self, mut each: impl FnMut(ChatMessage<'c>)) {
        let mut at = 0;
        let mut system_seen = false;
        convert_each(
            self.model,
            self.context,
            &self.compat,
            &mut |mut message| {
                if let Some(cache) = &self.cache {
                    let system = !is_turn(&message) && markable_content(&mut message).is_some();
                    let mark = if system {
                        !std::mem::replace(&mut system_seen, true)
                    } else {
                        cache.last_turn == Some(at)
                    };
                    if let Some(content) = markable_content(&mut message).filter(|_| mark) {
                        mark_text(content, &cache.marker);
                    }
                }
                at += 1;
                each(message);
            },
        );
    }

    /// All the messages at once.
    pub fn to_vec(&self) -> Vec<ChatMessage<'c>> {
        let mut messages = Vec::with_capacity(self.context.messages.len() + 1);
        self.for_each(|message| messages.push(message));
        messages
    }
}

/// A user or assistant message (not the system prompt, not a tool result).
fn is_turn(message: &ChatMessage<'_>) -> bool {
    matches!(
        message,
        ChatMessage::User { .. } | ChatMessage::Assistant(_)
    )
}

impl Serialize for ChatMessages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        let mut result = Ok(());
        self.for_each(|message| {
            if result.is_ok() {
                result = seq.serialize_element(&message);
            }
        });
        result?;
        seq.end()
    }
}

impl fmt::Debug for ChatMessages<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.to_vec()).finish()
    }
}

impl PartialEq for ChatMessages<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.to_vec() == other.to_vec()
    }
}
