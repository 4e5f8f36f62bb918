//! Event sequences as JSON for assertions and snapshots, without the
//! `partial` snapshot every event carries (it always shows the latest state).

use pi_ai::{AssistantMessage, AssistantMessageEvent, Message};
use serde_json::{Value, json};

/// One event as JSON without its `partial`; the settled message of a
/// terminal event (`message` / `error`) has its timestamp zeroed.
pub fn event_summary(event: &AssistantMessageEvent) -> Value {
    let mut value = serde_json::to_value(event).unwrap();
    if let Some(object) = value.as_object_mut() {
        object.shift_remove("partial");
        for key in ["message", "error"] {
            if let Some(message) = object.get_mut(key).and_then(Value::as_object_mut) {
                message.insert("timestamp".into(), json!(0));
            }
        }
    }
    value
}

/// `{events, message}`: every event as JSON without its `partial` and
/// without the settled message (shown once, as `message`, timestamp zeroed).
pub fn stream_summary(events: &[AssistantMessageEvent]) -> Value {
    let list: Vec<Value> = events
        .iter()
        .map(|event| {
            let mut value = serde_json::to_value(event).unwrap();
            if let Some(object) = value.as_object_mut() {
                for key in ["partial", "message", "error"] {
                    object.shift_remove(key);
                }
            }
            value
        })
        .collect();
    let mut message = final_message(events);
    message.timestamp = 0;
    json!({"events": list, "message": serde_json::to_value(Message::Assistant(message)).unwrap()})
}

/// The settled message of the terminal (last) event.
pub fn final_message(events: &[AssistantMessageEvent]) -> AssistantMessage {
    events
        .last()
        .and_then(AssistantMessageEvent::final_message)
        .cloned()
        .unwrap_or_else(|| panic!("the stream does not end with done or error: {events:?}"))
}

/// Asserts that `events` ended in an `error` event whose settled message has
/// stop reason `error`, `error_text` as its error, and the text streamed
/// before the failure (`partial_text`) kept.
pub fn assert_failed_keeping_text(
    events: &[AssistantMessageEvent],
    error_text: &str,
    partial_text: &str,
) {
    assert_eq!(
        events.last().map(AssistantMessageEvent::kind),
        Some("error")
    );
    let message = final_message(events);
    assert_eq!(message.stop_reason, pi_ai::StopReason::Error);
    assert_eq!(message.error_message.as_deref(), Some(error_text));
    assert_eq!(message.text(), partial_text);
}
