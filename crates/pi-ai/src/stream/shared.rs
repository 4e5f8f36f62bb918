//! The streaming partial message, shared by reference between the producer
//! and every event, as pi shares one mutable object: appending a delta is
//! O(delta), and cloning an event is O(1).

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::AssistantMessage;

/// A handle to the partial assistant message of a stream. Every event of one
/// stream holds the same handle, so it always shows the latest state (pi's
/// `partial` behaves the same way).
#[derive(Clone)]
pub struct SharedMessage(Arc<Mutex<AssistantMessage>>);

impl SharedMessage {
    /// Wraps a message.
    pub fn new(message: AssistantMessage) -> Self {
        Self(Arc::new(Mutex::new(message)))
    }

    /// Locks the message for reading or in-place mutation.
    pub fn lock(&self) -> MutexGuard<'_, AssistantMessage> {
        // A panic while holding the lock cannot leave the message in a state
        // that is unsafe to read, so a poisoned lock is simply recovered.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A deep copy of the current state.
    pub fn snapshot(&self) -> AssistantMessage {
        self.lock().clone()
    }

    /// True when both handles point at the same message.
    pub fn ptr_eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl fmt::Debug for SharedMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.lock().fmt(f)
    }
}

impl PartialEq for SharedMessage {
    fn eq(&self, other: &Self) -> bool {
        self.ptr_eq(other) || *self.lock() == *other.lock()
    }
}

impl From<AssistantMessage> for SharedMessage {
    fn from(value: AssistantMessage) -> Self {
        Self::new(value)
    }
}

impl Serialize for SharedMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        crate::tagged::assistant::serialize(&self.lock(), serializer)
    }
}

impl<'de> Deserialize<'de> for SharedMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::tagged::assistant::deserialize(deserializer).map(Self::new)
    }
}
