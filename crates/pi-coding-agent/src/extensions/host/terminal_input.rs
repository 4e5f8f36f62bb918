//! pi's `ctx.ui.onTerminalInput` for host extensions: the host names each
//! listener (`ui onTerminalInput [id]`, `offTerminalInput [id]` when the
//! extension unsubscribes), pi-rs adds it to its UI's listeners, and each
//! key before the editor is asked of the host (`terminal_input {listener,
//! data}`, the key as the bytes a terminal sends): `{consume}` swallows it,
//! `{data}` replaces it (typed as text), `null` passes it on. A host that
//! does not answer in time passes the key on.

use std::sync::{Arc, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

use super::Host;
use super::calls::{Calls, error};
use super::component::key_bytes;
use super::protocol::RemoteError;
use crate::extensions::{ExtensionContext, ExtensionKey, TerminalInput};

/// How long a key waits for the host's listener.
const TIMEOUT: Duration = Duration::from_millis(250);

impl Calls {
    /// `ui onTerminalInput` / `offTerminalInput` (`None`: another method).
    pub(super) fn terminal_input_call(
        &self,
        ctx: &ExtensionContext,
        params: &Value,
    ) -> Option<Result<Value, RemoteError>> {
        let method = params.get("method").and_then(Value::as_str)?;
        if method != "onTerminalInput" && method != "offTerminalInput" {
            return None;
        }
        let id = params
            .get("args")
            .and_then(|a| a.get(0))
            .and_then(Value::as_u64);
        let host = self.live_host();
        let (Some(host), Some(id)) = (host, id) else {
            return Some(Err(error(format!("ctx.ui.{method}: no listener"))));
        };
        let mut listeners = host
            .listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(previous) = listeners.remove(&id) {
            previous.remove();
        }
        if method == "onTerminalInput" {
            let weak = Arc::downgrade(&host);
            let handle = ctx.ui().on_terminal_input(Arc::new(move |key| {
                weak.upgrade()
                    .map_or(TerminalInput::Pass, |host| host.terminal_input(id, key))
            }));
            listeners.insert(id, handle);
        }
        Some(Ok(Value::Null))
    }
}

impl Host {
    /// Listener `id`'s answer for `key`.
    fn terminal_input(&self, id: u64, key: &ExtensionKey) -> TerminalInput {
        let (Some(data), Some(connection)) = (key_bytes(key), self.live_connection()) else {
            return TerminalInput::Pass;
        };
        let params = json!({ "listener": id, "data": data });
        match connection.request_blocking("terminal_input", params, TIMEOUT) {
            Some(Ok(answer)) => answer_of(&answer),
            Some(Err(e)) => {
                tracing::debug!("extension terminal input listener failed: {e}");
                TerminalInput::Pass
            }
            None => TerminalInput::Pass,
        }
    }
}

/// The listener's answer as pi-rs takes it.
fn answer_of(answer: &Value) -> TerminalInput {
    if answer.get("consume").and_then(Value::as_bool) == Some(true) {
        return TerminalInput::Consume;
    }
    match answer.get("data").and_then(Value::as_str) {
        Some(data) => TerminalInput::Replace(data.to_owned()),
        None => TerminalInput::Pass,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_as_pi_handlers_give_them() {
        assert_eq!(
            answer_of(&json!({ "consume": true })),
            TerminalInput::Consume
        );
        assert_eq!(
            answer_of(&json!({ "data": "x" })),
            TerminalInput::Replace("x".into())
        );
        assert_eq!(answer_of(&Value::Null), TerminalInput::Pass);
        assert_eq!(answer_of(&json!({ "consume": false })), TerminalInput::Pass);
    }
}
