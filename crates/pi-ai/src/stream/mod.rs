//! The streaming protocol: events, the shared partial message, the producer
//! sink and the consumer stream.

mod event;
mod event_stream;
mod queue;
mod shared;
mod sink;

pub use event::{AssistantMessageEvent, DoneReason, ErrorReason};
pub use event_stream::{ABORTED_MESSAGE, AssistantMessageEventStream};
pub use shared::SharedMessage;
pub use sink::{EventSink, MAX_ERROR_TEXT_BYTES, bounded_error_text};

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
