//! [`TransformedMessage`]: one message of a transcript after
//! [`transform_messages_iter`](crate::transform_messages_iter).

use std::ops::Deref;

use crate::Message;

/// A message of a transformed transcript: the caller's own message when the
/// transform left it as it is, else the rewritten (or synthetic) one.
///
/// Like `Cow<'m, Message>`, but a rewritten message is boxed, so a list of
/// them costs a pointer per message rather than a whole `Message`: a long
/// transcript is mostly borrowed, and a `Cow` list of it would be as large
/// as the transcript's own list.
#[derive(Debug, Clone, PartialEq)]
pub enum TransformedMessage<'m> {
    /// The message as it is in the transcript.
    Borrowed(&'m Message),
    /// A rewritten or synthetic message.
    Owned(Box<Message>),
}

impl TransformedMessage<'_> {
    /// A rewritten or synthetic message.
    pub fn owned(message: Message) -> Self {
        Self::Owned(Box::new(message))
    }

    /// The message, copied if it is borrowed.
    pub fn into_owned(self) -> Message {
        match self {
            Self::Borrowed(message) => message.clone(),
            Self::Owned(message) => *message,
        }
    }
}

impl Deref for TransformedMessage<'_> {
    type Target = Message;

    fn deref(&self) -> &Message {
        match self {
            Self::Borrowed(message) => message,
            Self::Owned(message) => message,
        }
    }
}

impl AsRef<Message> for TransformedMessage<'_> {
    fn as_ref(&self) -> &Message {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::UserMessage;

    #[test]
    fn a_list_of_them_costs_two_words_per_message() {
        assert_eq!(
            std::mem::size_of::<TransformedMessage<'_>>(),
            2 * std::mem::size_of::<usize>()
        );
    }

    #[test]
    fn both_forms_read_and_give_the_message() {
        let message = Message::User(UserMessage {
            content: "hi".into(),
            ..UserMessage::default()
        });
        let borrowed = TransformedMessage::Borrowed(&message);
        let owned = TransformedMessage::owned(message.clone());
        assert_eq!(*borrowed, message);
        assert_eq!(*owned, message);
        assert_eq!(borrowed.into_owned(), message);
        assert_eq!(owned.into_owned(), message);
    }
}
