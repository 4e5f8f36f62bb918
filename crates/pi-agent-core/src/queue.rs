//! The steering and follow-up queues of an [`crate::Agent`].

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::message::AgentMessage;

/// How a queue hands out its messages when the loop polls it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum QueueMode {
    /// One message per poll (pi's default).
    #[default]
    #[serde(rename = "one-at-a-time")]
    OneAtATime,
    /// Everything queued, at once.
    #[serde(rename = "all")]
    All,
}

/// Messages waiting to be injected into a run.
#[derive(Debug)]
pub(crate) struct PendingQueue<C> {
    messages: VecDeque<AgentMessage<C>>,
    pub(crate) mode: QueueMode,
}

impl<C> PendingQueue<C> {
    pub(crate) fn new(mode: QueueMode) -> Self {
        Self {
            messages: VecDeque::new(),
            mode,
        }
    }

    pub(crate) fn enqueue(&mut self, message: AgentMessage<C>) {
        self.messages.push_back(message);
    }

    pub(crate) fn has_items(&self) -> bool {
        !self.messages.is_empty()
    }

    /// Takes what the mode allows: the first message, or all of them.
    pub(crate) fn drain(&mut self) -> Vec<AgentMessage<C>> {
        match self.mode {
            QueueMode::OneAtATime => self.messages.pop_front().into_iter().collect(),
            QueueMode::All => self.messages.drain(..).collect(),
        }
    }

    pub(crate) fn clear(&mut self) {
        self.messages.clear();
    }
}

#[cfg(test)]
mod tests {
    use pi_ai::{Message, UserMessage};

    use super::*;

    fn user(n: i64) -> AgentMessage {
        Message::User(UserMessage {
            content: format!("m{n}").into(),
            timestamp: n,
            ..UserMessage::default()
        })
        .into()
    }

    #[test]
    fn one_at_a_time_hands_out_the_oldest_first() {
        let mut queue = PendingQueue::new(QueueMode::OneAtATime);
        queue.enqueue(user(1));
        queue.enqueue(user(2));
        assert_eq!(queue.drain(), vec![user(1)]);
        assert_eq!(queue.drain(), vec![user(2)]);
        assert!(queue.drain().is_empty());
    }

    #[test]
    fn all_hands_out_everything() {
        let mut queue = PendingQueue::new(QueueMode::All);
        queue.enqueue(user(1));
        queue.enqueue(user(2));
        assert!(queue.has_items());
        assert_eq!(queue.drain(), vec![user(1), user(2)]);
        assert!(!queue.has_items());
    }

    #[test]
    fn modes_serialize_as_pi_writes_them() {
        assert_eq!(
            serde_json::to_string(&[QueueMode::OneAtATime, QueueMode::All]).ok(),
            Some(r#"["one-at-a-time","all"]"#.to_owned())
        );
    }
}
