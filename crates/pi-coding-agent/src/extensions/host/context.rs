//! The `context` event through a host: the transcript goes as a delta
//! against the one last sent (`messagesDelta: {keep, append}`: the first
//! `keep` messages as before, then `append`), so a turn of a long session
//! sends its new messages, not the whole transcript. The host rebuilds the
//! list and gives each handler its own copy, as pi does.

use std::sync::Arc;

use serde_json::{Value, json};

use super::Host;
use super::connection::{Connection, HostError};
use crate::extensions::{ContextResult, ExtensionContext, Message};

/// The transcript last sent to a host, and on which connection.
#[derive(Default)]
pub(super) struct SentContext {
    messages: Option<Arc<Vec<Message>>>,
    connection: Option<std::sync::Weak<Connection>>,
}

/// How many leading messages `new` shares with `old`.
fn common_prefix(old: &[Message], new: &[Message]) -> usize {
    old.iter().zip(new).take_while(|(a, b)| a == b).count()
}

impl Host {
    /// Handler `handler` of extension `ext` on `messages`.
    pub(super) async fn context_event(
        &self,
        ctx: &ExtensionContext,
        ext: usize,
        handler: usize,
        messages: Arc<Vec<Message>>,
    ) -> Result<Option<ContextResult>, HostError> {
        let connection = self.connection().await?;
        self.sync(ctx, &connection).await;
        // Held across the request: the host's copy and ours stay in step.
        let mut sent = self.context_sent.lock().await;
        let same_connection = sent
            .connection
            .as_ref()
            .and_then(std::sync::Weak::upgrade)
            .is_some_and(|c| Arc::ptr_eq(&c, &connection));
        let keep = match (&sent.messages, same_connection) {
            (Some(old), true) => common_prefix(old, &messages),
            _ => 0,
        };
        let append: Vec<Value> = messages[keep..]
            .iter()
            .map(|m| serde_json::to_value(m).unwrap_or(Value::Null))
            .collect();
        let event = json!({
            "type": "context",
            "messagesDelta": { "keep": keep, "append": append },
        });
        sent.messages = None;
        let answer = connection
            .request_with(
                "event",
                json!({ "ext": ext, "handler": handler, "event": event }),
                None,
                ctx.signal().as_ref(),
            )
            .await?;
        sent.messages = Some(messages);
        sent.connection = Some(Arc::downgrade(&connection));
        if answer.is_null() {
            return Ok(None);
        }
        serde_json::from_value(answer)
            .map(Some)
            .map_err(|e| HostError::Remote {
                message: format!("the context handler's answer is not valid: {e}"),
                stack: None,
            })
    }
}
