//! The pure parts of the WebSocket transport: its URL, its handshake
//! headers, the `response.create` message and the continuation of a cached
//! socket (`previous_response_id` and only the input added since).

use pi_ai::{AssistantMessage, Context, Message, Model};
use pi_providers_openai_responses::{OPENAI_TOOL_CALL_PROVIDERS, convert_messages};
use serde_json::{Map, Value};

use crate::provider::codex_url;

/// The `OpenAI-Beta` value of a WebSocket handshake.
pub const OPENAI_BETA_RESPONSES_WEBSOCKETS: &str = "responses_websockets=2026-02-06";

/// pi's `resolveCodexWebSocketUrl`: the Codex endpoint with `https` as
/// `wss` and `http` as `ws`.
pub fn codex_websocket_url(base_url: &str) -> String {
    let url = codex_url(base_url);
    if let Some(rest) = url.strip_prefix("https:") {
        format!("wss:{rest}")
    } else if let Some(rest) = url.strip_prefix("http:") {
        format!("ws:{rest}")
    } else {
        url
    }
}

/// The handshake headers from the SSE headers of the same call (the
/// model's, the call's and the wire's own): `accept`, `content-type` and
/// the SSE `OpenAI-Beta` dropped, `openai-beta` set to
/// [`OPENAI_BETA_RESPONSES_WEBSOCKETS`], and `x-client-request-id` and
/// `session_id` set to `request_id` (the session id, or a fresh id).
pub fn websocket_headers(
    sse_headers: &[(String, String)],
    request_id: &str,
) -> Vec<(String, String)> {
    const DROPPED: [&str; 5] = [
        "accept",
        "content-type",
        "openai-beta",
        "x-client-request-id",
        "session_id",
    ];
    let mut headers: Vec<(String, String)> = sse_headers
        .iter()
        .filter(|(name, _)| !DROPPED.iter().any(|d| name.eq_ignore_ascii_case(d)))
        .cloned()
        .collect();
    headers.push((
        "openai-beta".to_owned(),
        OPENAI_BETA_RESPONSES_WEBSOCKETS.to_owned(),
    ));
    headers.push(("x-client-request-id".to_owned(), request_id.to_owned()));
    headers.push(("session_id".to_owned(), request_id.to_owned()));
    headers
}

/// `{"type":"response.create", ...body}` as text.
pub fn response_create_message(body: &Map<String, Value>) -> String {
    let mut message = Map::with_capacity(body.len() + 1);
    message.insert("type".to_owned(), Value::from("response.create"));
    for (key, value) in body {
        message.insert(key.clone(), value.clone());
    }
    Value::Object(message).to_string()
}

/// What a cached socket remembers of its last completed call.
#[derive(Debug, Clone, PartialEq)]
pub struct Continuation {
    /// The full body of that call (before any delta was taken).
    pub last_request_body: Map<String, Value>,
    /// The id of its response.
    pub last_response_id: String,
    /// Its answer as input items (tool results left out).
    pub last_response_items: Vec<Value>,
}

impl Continuation {
    /// The continuation after `output` answered `body`: `None` when the
    /// response has no id.
    pub fn after(
        model: &Model,
        body: Map<String, Value>,
        output: AssistantMessage,
    ) -> Option<Self> {
        let last_response_id = output.response_id.clone()?;
        let context = Context {
            messages: vec![Message::Assistant(output)],
            ..Context::default()
        };
        let last_response_items =
            convert_messages(model, context.view(), &OPENAI_TOOL_CALL_PROVIDERS, false)
                .iter()
                .filter_map(|item| serde_json::to_value(item).ok())
                .filter(|item| {
                    item.get("type").and_then(Value::as_str) != Some("function_call_output")
                })
                .collect();
        Some(Self {
            last_request_body: body,
            last_response_id,
            last_response_items,
        })
    }

    /// pi's `buildCachedWebSocketRequestBody`: `body` with
    /// `previous_response_id` and only the input items after the last
    /// request's input and answer, when every other field is the same and
    /// the input starts with them; `None` otherwise (the full body is sent
    /// and the continuation dropped).
    pub fn request_body(&self, body: &Map<String, Value>) -> Option<Map<String, Value>> {
        if !same_except_input(body, &self.last_request_body) {
            return None;
        }
        let current = input_of(body);
        let previous = input_of(&self.last_request_body);
        let baseline = previous.len() + self.last_response_items.len();
        if current.len() < baseline {
            return None;
        }
        let (prefix, delta) = current.split_at(baseline);
        let matches = prefix[..previous.len()] == *previous
            && prefix[previous.len()..] == *self.last_response_items;
        if !matches {
            return None;
        }
        let mut continued = body.clone();
        continued.insert("input".to_owned(), Value::Array(delta.to_vec()));
        continued.insert(
            "previous_response_id".to_owned(),
            Value::from(self.last_response_id.as_str()),
        );
        Some(continued)
    }
}

/// The `input` array of a body (empty when it has none).
fn input_of(body: &Map<String, Value>) -> &[Value] {
    body.get("input")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Whether two bodies have the same fields in the same order, `input` and
/// `previous_response_id` aside (pi compares their JSON texts).
fn same_except_input(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    fn rest(m: &Map<String, Value>) -> impl Iterator<Item = (&String, &Value)> {
        m.iter()
            .filter(|(key, _)| *key != "input" && *key != "previous_response_id")
    }
    rest(a).eq(rest(b))
}

#[cfg(test)]
#[path = "ws_request_tests.rs"]
mod tests;
