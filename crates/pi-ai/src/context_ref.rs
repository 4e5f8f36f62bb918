//! [`ContextRef`]: a [`Context`] borrowed from wherever its parts live, so a
//! caller that keeps its transcript in another form (an agent's own message
//! list) can call a provider without copying the transcript into a
//! `Context` first.

use std::slice;

use crate::{Context, ExtraFields, Message, Tool, TransformedMessage};

/// What a model call receives, borrowed: the fields of [`Context`].
#[derive(Debug, Clone, Copy)]
pub struct ContextRef<'a> {
    /// System prompt.
    pub system_prompt: Option<&'a str>,
    /// The conversation so far.
    pub messages: MessagesRef<'a>,
    /// Tools the model may call.
    pub tools: Option<&'a [Tool]>,
}

impl<'a> ContextRef<'a> {
    /// A context of `messages` with no system prompt and no tools.
    pub fn of_messages(messages: MessagesRef<'a>) -> Self {
        Self {
            system_prompt: None,
            messages,
            tools: None,
        }
    }

    /// The owned [`Context`] of the same call (copies every message).
    pub fn to_context(&self) -> Context {
        Context {
            system_prompt: self.system_prompt.map(str::to_owned),
            messages: self.messages.iter().cloned().collect(),
            tools: self.tools.map(<[Tool]>::to_vec),
            extra: ExtraFields::new(),
        }
    }
}

impl<'a> From<&'a Context> for ContextRef<'a> {
    fn from(context: &'a Context) -> Self {
        context.view()
    }
}

impl Context {
    /// This context, borrowed.
    pub fn view(&self) -> ContextRef<'_> {
        ContextRef {
            system_prompt: self.system_prompt.as_deref(),
            messages: MessagesRef::Slice(&self.messages),
            tools: self.tools.as_deref(),
        }
    }
}

/// The messages of a [`ContextRef`]: a plain list, or a list of messages
/// each borrowed from a transcript or converted for the call.
#[derive(Debug, Clone, Copy)]
pub enum MessagesRef<'a> {
    /// Messages as they are stored.
    Slice(&'a [Message]),
    /// Messages converted for the call (mostly borrowed from a transcript).
    Transformed(&'a [TransformedMessage<'a>]),
}

impl<'a> MessagesRef<'a> {
    /// The messages in order.
    pub fn iter(&self) -> MessagesIter<'a> {
        match *self {
            Self::Slice(messages) => MessagesIter::Slice(messages.iter()),
            Self::Transformed(messages) => MessagesIter::Transformed(messages.iter()),
        }
    }

    /// How many messages there are.
    pub fn len(&self) -> usize {
        match self {
            Self::Slice(messages) => messages.len(),
            Self::Transformed(messages) => messages.len(),
        }
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The last message.
    pub fn last(&self) -> Option<&'a Message> {
        self.iter().next_back()
    }
}

impl<'a> IntoIterator for MessagesRef<'a> {
    type Item = &'a Message;
    type IntoIter = MessagesIter<'a>;

    fn into_iter(self) -> MessagesIter<'a> {
        self.iter()
    }
}

impl<'a> From<&'a [Message]> for MessagesRef<'a> {
    fn from(messages: &'a [Message]) -> Self {
        Self::Slice(messages)
    }
}

impl<'a> From<&'a [TransformedMessage<'a>]> for MessagesRef<'a> {
    fn from(messages: &'a [TransformedMessage<'a>]) -> Self {
        Self::Transformed(messages)
    }
}

/// The iterator of [`MessagesRef::iter`].
#[derive(Debug, Clone)]
pub enum MessagesIter<'a> {
    /// Over a plain list.
    Slice(slice::Iter<'a, Message>),
    /// Over converted messages.
    Transformed(slice::Iter<'a, TransformedMessage<'a>>),
}

impl<'a> Iterator for MessagesIter<'a> {
    type Item = &'a Message;

    fn next(&mut self) -> Option<&'a Message> {
        match self {
            Self::Slice(iter) => iter.next(),
            Self::Transformed(iter) => iter.next().map(|message| &**message),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Self::Slice(iter) => iter.size_hint(),
            Self::Transformed(iter) => iter.size_hint(),
        }
    }
}

impl DoubleEndedIterator for MessagesIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match self {
            Self::Slice(iter) => iter.next_back(),
            Self::Transformed(iter) => iter.next_back().map(|message| &**message),
        }
    }
}

impl ExactSizeIterator for MessagesIter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::UserMessage;

    fn user(text: &str) -> Message {
        Message::User(UserMessage {
            content: text.into(),
            ..UserMessage::default()
        })
    }

    #[test]
    fn a_view_reads_as_the_context_and_copies_back_to_it() {
        let context = Context {
            system_prompt: Some("Be brief.".into()),
            messages: vec![user("a"), user("b")],
            tools: Some(Vec::new()),
            ..Context::default()
        };
        let view = context.view();
        assert_eq!(view.system_prompt, Some("Be brief."));
        assert_eq!(view.messages.len(), 2);
        assert_eq!(view.messages.last(), Some(&user("b")));
        assert_eq!(view.to_context(), context);
    }

    #[test]
    fn converted_messages_read_in_order_whether_borrowed_or_owned() {
        let stored = [user("a"), user("c")];
        let converted = [
            TransformedMessage::Borrowed(&stored[0]),
            TransformedMessage::owned(user("b")),
            TransformedMessage::Borrowed(&stored[1]),
        ];
        let messages = MessagesRef::Transformed(&converted);
        let read: Vec<Message> = messages.iter().cloned().collect();
        assert_eq!(read, vec![user("a"), user("b"), user("c")]);
        assert_eq!(messages.iter().len(), 3);
        assert_eq!(messages.iter().next_back(), Some(&user("c")));
        assert!(!messages.is_empty());
    }
}
